import {
  readyToStore,
  type Converted,
  type IngestHints,
  type PreparedTelegram,
  type Ready,
} from './prepare.ts';
import { startRunner, type PrepareRunner, type RunnerKind } from './prepare-runners.ts';

/** A telegram to prepare, as posted to a runner. */
export interface PrepareRequest {
  seq: number;
  raw: Uint8Array;
  hints: IngestHints;
  /** Whether the runner also compresses and identifies it, or leaves that to the caller. */
  compress: boolean;
}

/** A prepared telegram, or one read and converted only, when compressing was left to the caller. */
type Outcome = { ready: Ready } | { converted: Converted };

/** What a runner posts: that it has loaded its code, or the outcome of one request. */
export type PrepareReply = { started: true } | ({ seq: number } & Outcome) | { seq: number; error: string };

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
  resolve(ready: Ready): void;
  reject(err: Error): void;
}

interface Slot {
  runner: PrepareRunner;
  started: boolean;
  jobs: Map<number, Job>;
}

function rejectJobs(slot: Slot, err: Error): void {
  for (const job of slot.jobs.values()) job.reject(err);
  slot.jobs.clear();
}

/**
 * Runners (worker threads or child processes, prepare-runners.ts) that prepare telegrams: for bulk
 * ingest, so that this work runs on other cores while the ingesting thread stores (docs/telegrams.md,
 * "Bulk ingest"), and for large live telegrams, so that they do not hold the event loop
 * (docs/telegrams.md, "Size"). Asked to, a runner only reads and converts a telegram
 * (`convertReceived`), and this thread compresses and identifies it on arrival (`readyToStore`).
 * Runners start on first use and load their code in the background: until one has, `prepare` returns
 * null and the caller prepares inline, so a short ingest never waits for them. They keep the process
 * alive only while they have work, and stop after IDLE_MS without any. A runner that fails is dropped
 * with its jobs rejected (the caller prepares those inline); if one fails before it ever started, the
 * pool stays empty for the life of the process.
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
  prepare(raw: Buffer, hints: IngestHints, compress = true, orStarting = false): Promise<Ready> | null {
    this.#fill();
    clearTimeout(this.#idle);
    let slot: Slot | undefined;
    for (const s of this.#slots)
      if ((s.started || orStarting) && (!slot || s.jobs.size < slot.jobs.size)) slot = s;
    return slot ? this.#post(slot, raw, hints, compress) : null;
  }

  /** Stops every runner now (their pending jobs are rejected). */
  async close(): Promise<void> {
    clearTimeout(this.#idle);
    const slots = this.#slots.splice(0);
    for (const slot of slots) rejectJobs(slot, new Error('prepare pool closed'));
    await Promise.all(slots.map((s) => s.runner.stop()));
  }

  /** Posts a request to the slot's runner (one still starting receives it once it listens). */
  #post(slot: Slot, raw: Buffer, hints: IngestHints, compress: boolean): Promise<Ready> {
    const seq = ++this.#seq;
    const { runner, jobs } = slot;
    if (jobs.size === 0) runner.ref();
    runner.post({ seq, raw, hints, compress });
    return new Promise<Ready>((resolve, reject) => jobs.set(seq, { resolve, reject }));
  }

  #fill(): void {
    while (!this.#broken && this.#slots.length < this.size) this.#slots.push(this.#start());
  }

  #start(): Slot {
    const runner = startRunner(this.kind);
    const slot: Slot = { runner, started: false, jobs: new Map() };
    runner.onReply((reply) => {
      if ('started' in reply) {
        slot.started = true;
        return;
      }
      const job = slot.jobs.get(reply.seq);
      if (!job) return;
      slot.jobs.delete(reply.seq);
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
      const at = this.#slots.indexOf(slot);
      if (at < 0) return; // closed
      this.#slots.splice(at, 1);
      if (!slot.started) this.#broken = true;
      rejectJobs(slot, err);
    });
    // After the listeners: a worker's 'message' listener refs its port again when it is added.
    runner.unref();
    return slot;
  }

  /** A runner without work no longer keeps the process alive; when none has work, all stop soon. */
  #rest(runner: PrepareRunner): void {
    runner.unref();
    if (this.#slots.some((s) => s.jobs.size > 0)) return;
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.close(), IDLE_MS);
    this.#idle.unref();
  }
}
