/**
 * Runs the session starts (or the ticket redemptions) of one account in batches, in the order they
 * came. Each batch is one transaction holding the account's row lock in the database
 * (socket-sessions.ts): a storm of starts for one account would otherwise hold every pooled
 * connection waiting on that lock, the delivery's own reads (the telegrams to broadcast) behind
 * them, and admit one session per round of a dozen statements. Here an account holds at most one
 * pooled connection per kind, and the starts that came while one batch ran go together in the next
 * (docs/operations.md "A connection storm").
 */

/** Requests of one account written in one transaction at most. */
const MAX_BATCH = 256;

interface Job<In, Out> {
  input: In;
  resolve: (out: Out) => void;
  reject: (err: unknown) => void;
}

/** Answers each input of one account, in order (the returned array is as long as `inputs`). */
export type BatchRunner<In, Out> = (accountId: number, inputs: readonly In[]) => Promise<Out[]>;

export class AccountBatches<In, Out> {
  /** Accounts with a batch under way, and the requests that came since. */
  private readonly queued = new Map<number, Job<In, Out>[]>();

  constructor(private readonly runBatch: BatchRunner<In, Out>) {}

  run(accountId: number, input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      const job = { input, resolve, reject };
      const queued = this.queued.get(accountId);
      if (queued) {
        queued.push(job);
        return;
      }
      this.queued.set(accountId, []);
      void this.drain(accountId, [job]);
    });
  }

  private async drain(accountId: number, first: Job<In, Out>[]): Promise<void> {
    let batch = first;
    while (batch.length > 0) {
      await this.settle(accountId, batch);
      const queued = this.queued.get(accountId)!;
      batch = queued.splice(0, MAX_BATCH);
      if (batch.length === 0) this.queued.delete(accountId);
    }
  }

  /**
   * Runs one batch. When a batch of several fails, each request runs alone, so that one request's
   * failure is its own.
   */
  private async settle(accountId: number, batch: readonly Job<In, Out>[]): Promise<void> {
    try {
      const outs = await this.runBatch(
        accountId,
        batch.map((j) => j.input),
      );
      batch.forEach((j, i) => j.resolve(outs[i]!));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      for (const job of batch) await this.settle(accountId, [job]);
    }
  }
}
