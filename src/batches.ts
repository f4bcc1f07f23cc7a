/**
 * Requests written in batches, one batch at a time per key, in the order they came: what came while
 * one batch ran goes together in the next. One account's session starts (or ticket redemptions),
 * each batch one transaction holding the account's row lock (sessions/socket-sessions.ts): a storm
 * of them would otherwise hold every pooled connection waiting on that lock, the delivery's own
 * reads behind them, and admit one session per round of a dozen statements. The look-ups of the
 * accounts whose tickets are redeemed, all accounts' in one batch (docs/operations.md "A connection
 * storm").
 */

/** Requests of one key written together at most. */
const MAX_BATCH = 256;

interface Job<In, Out> {
  input: In;
  resolve: (out: Out) => void;
  reject: (err: unknown) => void;
}

/** Answers each input of one key, in order (the returned array is as long as `inputs`). */
export type BatchRunner<In, Out> = (key: number | string, inputs: readonly In[]) => Promise<Out[]>;

export class Batches<In, Out> {
  /** Keys with a batch under way, and the requests that came since. */
  private readonly queued = new Map<number | string, Job<In, Out>[]>();

  constructor(private readonly runBatch: BatchRunner<In, Out>) {}

  run(key: number | string, input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      const job = { input, resolve, reject };
      const queued = this.queued.get(key);
      if (queued) {
        queued.push(job);
        return;
      }
      this.queued.set(key, []);
      void this.drain(key, [job]);
    });
  }

  private async drain(key: number | string, first: Job<In, Out>[]): Promise<void> {
    let batch = first;
    while (batch.length > 0) {
      await this.settle(key, batch);
      const queued = this.queued.get(key)!;
      batch = queued.splice(0, MAX_BATCH);
      if (batch.length === 0) this.queued.delete(key);
    }
  }

  /**
   * Runs one batch. When a batch of several fails, each request runs alone, so that one request's
   * failure is its own.
   */
  private async settle(key: number | string, batch: readonly Job<In, Out>[]): Promise<void> {
    try {
      const outs = await this.runBatch(
        key,
        batch.map((j) => j.input),
      );
      batch.forEach((j, i) => j.resolve(outs[i]!));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      for (const job of batch) await this.settle(key, [job]);
    }
  }
}
