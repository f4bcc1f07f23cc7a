import { readyToStore, type IngestHints, type PreparedTelegram, type Ready } from './prepare.ts';
import {
  startRunner,
  type Outcome,
  type PrepareRequest,
  type PrepareRunner,
  type RunnerKind,
} from './prepare-runners.ts';
import { CodedError } from '../errors.ts';

/** What a caller may ask of one preparation besides the telegram (PreparePool.prepare). */
export interface PrepareOptions {
  /** The time budget: a job still running this long after it started is stopped (PrepareOverBudget). */
  budgetMs?: number;
  unconvertedBecause?: string;
}

/** A job stopped because it ran longer than its budget: its runner was stopped with it. */
export class PrepareOverBudget extends CodedError {
  constructor(message: string) {
    super('PREPARE_OVER_BUDGET', { message });
  }
}

/** Idle runners are kept this long for the next telegram, then stopped. */
const IDLE_MS = 10_000;

/** The outcome with every byte array in it (bodies, payload) replaced by `f`'s. */
function withBytes(outcome: Outcome, f: (bytes: Uint8Array) => Buffer): Outcome {
  if ('converted' in outcome) {
    const c = outcome.converted;
    return { converted: c.ok ? { ...c, telegram: { ...c.telegram, payload: f(c.telegram.payload) } } : c };
  }
  const { ready } = outcome;
  if (!ready.ok) return outcome;
  const rebody = (t: PreparedTelegram): PreparedTelegram => ({ ...t, body: f(t.body) });
  const { conversion } = ready;
  return {
    ready: {
      ok: true,
      telegram: rebody(ready.telegram),
      conversion: conversion?.ok ? { ...conversion, telegram: rebody(conversion.telegram) } : conversion,
    },
  };
}

/** The outcome with its byte arrays as standalone copies, so that they can be transferred, not cloned. */
export function transferable(outcome: Outcome): { outcome: Outcome; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const moved = withBytes(outcome, (bytes) => {
    const copy = new Uint8Array(bytes);
    transfer.push(copy.buffer);
    return copy as Buffer;
  });
  return { outcome: moved, transfer };
}

/**
 * A posted outcome as this thread's telegram, ready to store: byte arrays arrive as Uint8Array and
 * become Buffers again, and a telegram left to this thread is compressed and identified here.
 */
function receivedReady(posted: Outcome): Ready {
  const outcome = withBytes(posted, (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  return 'ready' in outcome ? outcome.ready : readyToStore(outcome.converted);
}

interface Job {
  request: PrepareRequest;
  budgetMs: number | undefined;
  resolve(ready: Ready): void;
  reject(err: Error): void;
}

interface Slot {
  runner: PrepareRunner;
  started: boolean;
  /** In the order posted, which is the order the runner takes them in: the first is in progress. */
  jobs: Map<number, Job>;
  /** The bytes of its jobs: what it has left to do, roughly. */
  bytes: number;
  /** Runs out when the job in progress has run for its budget. */
  budget?: NodeJS.Timeout;
}

function rejectJobs(slot: Slot, err: Error): void {
  for (const job of slot.jobs.values()) job.reject(err);
  slot.jobs.clear();
}

/** Below 0 when slot `a` is less busy than `b`: fewer bytes to prepare, then started, then fewer jobs. */
const lessBusy = (a: Slot, b: Slot) =>
  a.bytes - b.bytes || Number(b.started) - Number(a.started) || a.jobs.size - b.jobs.size;

/** The job the slot's runner is working on. */
const inProgress = (slot: Slot): Job | undefined => slot.jobs.values().next().value;

/**
 * Runners (worker threads or child processes, prepare-runners.ts) that prepare telegrams: for bulk
 * ingest, so that this work runs on other cores while the ingesting thread stores (docs/telegrams.md,
 * "Bulk ingest"), and for large live telegrams, so that they do not hold the event loop
 * (docs/telegrams.md, "Size"). Asked to, a runner only reads and converts a telegram
 * (`convertReceived`), and this thread compresses and identifies it on arrival (`readyToStore`).
 * Runners start on first use and load their code in the background: until one has, `prepare` returns
 * null and the caller prepares inline, so a short ingest never waits for them. They keep the process
 * alive only while they have work, and stop after IDLE_MS without any. A runner that fails is dropped
 * with the job it was working on rejected (the caller prepares that one inline) and the jobs waiting
 * behind it posted again to the other runners or a new one; if one fails before it ever started, the
 * pool stays empty for the life of the process and its jobs are rejected. A job is posted to the
 * runner with the fewest bytes to prepare, so that it does not wait behind a large telegram while
 * another runner is free. A job given a budget that has run that long is stopped with its runner,
 * rejected with PrepareOverBudget, and the jobs behind it are posted again (docs/telegrams.md, "Time
 * budget").
 */
export class PreparePool {
  readonly #slots: Slot[] = [];
  #seq = 0;
  #broken = false;
  #idle?: NodeJS.Timeout;

  /** `kind`: whether the pool's runners are threads of this process or child processes (prepare-runners.ts). */
  constructor(
    readonly size: number,
    readonly kind: RunnerKind = 'thread',
  ) {}

  /**
   * The telegram prepared by a runner, or null when no runner has started yet. With `compress` false
   * the runner only reads and converts it, and this thread compresses and identifies it on arrival.
   * With `orStarting`, a runner still starting takes it too (it receives it once it listens): for a
   * telegram too large for the event loop, waiting for a runner costs less than the loop would.
   * Null then only when the pool has no runner to give (none on one core, or none could start).
   */
  prepare(
    raw: Buffer,
    hints: IngestHints,
    compress = true,
    orStarting = false,
    { budgetMs, unconvertedBecause }: PrepareOptions = {},
  ): Promise<Ready> | null {
    this.#fill();
    clearTimeout(this.#idle);
    const slot = this.#leastBusy(orStarting);
    if (!slot) return null;
    const request: PrepareRequest = { seq: ++this.#seq, raw, hints, compress, unconvertedBecause };
    return new Promise<Ready>((resolve, reject) => this.#post(slot, { request, budgetMs, resolve, reject }));
  }

  /** Stops every runner now (their pending jobs are rejected). */
  async close(): Promise<void> {
    clearTimeout(this.#idle);
    const slots = this.#slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.budget);
      rejectJobs(slot, new Error('prepare pool closed'));
    }
    await Promise.all(slots.map((s) => s.runner.stop()));
  }

  /**
   * The slot with the fewest bytes to prepare (then one started, then the fewest jobs), of those
   * started unless `orStarting`.
   */
  #leastBusy(orStarting: boolean): Slot | undefined {
    let slot: Slot | undefined;
    for (const s of this.#slots) {
      if (!s.started && !orStarting) continue;
      if (!slot || lessBusy(s, slot) < 0) slot = s;
    }
    return slot;
  }

  /** Posts a job to the slot's runner (one still starting receives it once it listens). */
  #post(slot: Slot, job: Job): void {
    const { runner, jobs } = slot;
    if (jobs.size === 0) runner.ref();
    runner.post(job.request);
    jobs.set(job.request.seq, job);
    slot.bytes += job.request.raw.byteLength;
    if (jobs.size === 1) this.#timeInProgress(slot);
  }

  /** Takes the job in progress off its slot: answered, over its budget, or lost with its runner. */
  #settle(slot: Slot, job: Job): void {
    slot.jobs.delete(job.request.seq);
    slot.bytes -= job.request.raw.byteLength;
  }

  /**
   * Times the slot's job in progress against its budget, from when its runner could start on it: the
   * runner takes its jobs one after the other, so a job starts when the one before it is answered.
   */
  #timeInProgress(slot: Slot): void {
    clearTimeout(slot.budget);
    slot.budget = undefined;
    const job = inProgress(slot);
    if (!slot.started || job?.budgetMs === undefined) return;
    slot.budget = setTimeout(() => this.#overBudget(slot, job), job.budgetMs);
    slot.budget.unref();
  }

  /** Stops a job over its budget with its runner; the jobs behind it go to another runner. */
  #overBudget(slot: Slot, job: Job): void {
    this.#drop(slot);
    this.#settle(slot, job);
    job.reject(new PrepareOverBudget(`preparing took longer than ${job.budgetMs} ms`));
    void slot.runner.stop();
    this.#postAgain(slot);
  }

  /** Removes a slot from the pool; false when it was removed already (the pool closed, or a budget ran out). */
  #drop(slot: Slot): boolean {
    const at = this.#slots.indexOf(slot);
    if (at < 0) return false;
    this.#slots.splice(at, 1);
    clearTimeout(slot.budget);
    return true;
  }

  /** The jobs of a dropped slot posted to the others or a new runner, in their order. */
  #postAgain(dropped: Slot): void {
    this.#fill();
    for (const job of dropped.jobs.values()) {
      const slot = this.#leastBusy(true);
      if (slot) this.#post(slot, job);
      else job.reject(new Error('no prepare runner left'));
    }
    dropped.jobs.clear();
    if (!this.#slots.some((s) => s.jobs.size > 0)) this.#rest();
  }

  #fill(): void {
    while (!this.#broken && this.#slots.length < this.size) this.#slots.push(this.#start());
  }

  #start(): Slot {
    const runner = startRunner(this.kind);
    const slot: Slot = { runner, started: false, jobs: new Map(), bytes: 0 };
    runner.onReply((reply) => {
      if ('started' in reply) {
        slot.started = true;
        this.#timeInProgress(slot);
        return;
      }
      const job = slot.jobs.get(reply.seq);
      if (!job) return;
      this.#settle(slot, job);
      this.#timeInProgress(slot);
      if ('error' in reply) job.reject(new Error(reply.error));
      else {
        // Compressing here runs in this event handler: a failure goes to the job, not the process.
        try {
          job.resolve(receivedReady(reply));
        } catch (err) {
          job.reject(err as Error);
        }
      }
      if (slot.jobs.size === 0) this.#rest(runner);
    });
    runner.onEnd((err) => {
      if (!this.#drop(slot)) return; // closed, or stopped over a budget
      if (!slot.started) {
        this.#broken = true;
        rejectJobs(slot, err);
        return;
      }
      // The job in progress may be what ended it: it is not posted again.
      const job = inProgress(slot);
      if (job) {
        this.#settle(slot, job);
        job.reject(err);
      }
      this.#postAgain(slot);
    });
    // After the listeners: a worker's 'message' listener refs its port again when it is added.
    runner.unref();
    return slot;
  }

  /** A runner without work no longer keeps the process alive; when none has work, all stop soon. */
  #rest(runner?: PrepareRunner): void {
    runner?.unref();
    if (this.#slots.some((s) => s.jobs.size > 0)) return;
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.close(), IDLE_MS);
    this.#idle.unref();
  }
}
