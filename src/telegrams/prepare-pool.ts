import { Worker } from 'node:worker_threads';
import {
  readyToStore,
  type Converted,
  type IngestHints,
  type PreparedTelegram,
  type Ready,
} from './prepare.ts';

/** A telegram to prepare, as posted to a worker. */
export interface PrepareRequest {
  seq: number;
  raw: Uint8Array;
  hints: IngestHints;
  /** Whether the worker also compresses and identifies it, or leaves that to the caller. */
  compress: boolean;
}

/** A prepared telegram, or one read and converted only, when compressing was left to the caller. */
type Outcome = { ready: Ready } | { converted: Converted };

/** What a worker posts: that it has loaded its code, or the outcome of one request. */
export type PrepareReply = { started: true } | ({ seq: number } & Outcome) | { seq: number; error: string };

/** Idle workers are kept this long for the next bulk ingest, then stopped. */
const IDLE_MS = 10_000;

/**
 * How many nice steps a worker runs below the thread that starts it. On Linux a nice value is a
 * thread's own: when the cores are busy, the event loop (an early warning being stored and sent)
 * runs before a large telegram is parsed in a worker, which takes what is left over
 * (docs/telegrams.md, "Size"). Set before the worker loads its code, so that its start-up yields too.
 */
const WORKER_NICER_BY = 10;

/**
 * A worker's young generation, in MB (V8's default is 16 on 64-bit). Parsing a 4 MB telegram
 * allocates a few hundred MB of short-lived objects: with room for them to die young, the worker
 * runs a fraction of the collections, and the collector's helper threads, which the event loop's
 * collections share, are that much less busy (docs/telegrams.md, "Size").
 */
const WORKER_YOUNG_GENERATION_MB = 256;

/**
 * A prepare worker: the bundle's JavaScript beside this module (scripts/build.js builds it as its
 * own entry), or, when running from the TypeScript sources, with the TypeScript loader registered in
 * the worker first (a worker does not inherit a loader on Node 20).
 */
function startWorker(): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const code = JSON.stringify(
    new URL(fromSources ? './prepare-worker.ts' : './prepare-worker.js', import.meta.url).href,
  );
  const load = fromSources
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => (register(), import(${code})))`
    : `import(${code})`;
  // Where the nice value cannot be set, the worker runs at the process's.
  const nice = `try { const os = require('node:os'); os.setPriority(Math.min(19, os.getPriority() + ${WORKER_NICER_BY})); } catch {}`;
  return new Worker(`${nice}\n${load};`, {
    eval: true,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
}

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
  worker: Worker;
  started: boolean;
  jobs: Map<number, Job>;
}

function rejectJobs(slot: Slot, err: Error): void {
  for (const job of slot.jobs.values()) job.reject(err);
  slot.jobs.clear();
}

/**
 * Worker threads that prepare telegrams for bulk ingest, so that this work runs on other cores while
 * the ingesting thread stores (docs/telegrams.md, "Bulk ingest"), and large live telegrams, so that
 * they do not hold the event loop (docs/telegrams.md, "Size"). Asked to, a worker only reads and
 * converts a telegram (`convertReceived`), and this thread compresses and identifies it on arrival
 * (`readyToStore`). Workers start on first use and load their code in the background: until one
 * has, `prepare` returns null and the caller prepares inline, so a short ingest never waits for
 * them. They keep the process alive only while they have work, and stop after IDLE_MS
 * without any. A worker that fails is dropped with its jobs rejected (the caller prepares those
 * inline); if one fails before it ever started, the pool stays empty for the life of the process.
 */
export class PreparePool {
  readonly #slots: Slot[] = [];
  #seq = 0;
  #broken = false;
  #idle?: NodeJS.Timeout;

  constructor(readonly size: number) {}

  /**
   * The telegram prepared by a worker, or null when no worker has started yet. With `compress` false
   * the worker only reads and converts it, and this thread compresses and identifies it on arrival.
   * With `orStarting`, a worker still starting takes it too (it receives it once it listens): for a
   * telegram too large for the event loop, waiting for a worker costs less than the loop would.
   * Null then only when the pool has no worker to give (none on one core, or none could start).
   */
  prepare(raw: Buffer, hints: IngestHints, compress = true, orStarting = false): Promise<Ready> | null {
    this.#fill();
    clearTimeout(this.#idle);
    let slot: Slot | undefined;
    for (const s of this.#slots)
      if ((s.started || orStarting) && (!slot || s.jobs.size < slot.jobs.size)) slot = s;
    return slot ? this.#post(slot, raw, hints, compress) : null;
  }

  /** Stops every worker now (their pending jobs are rejected). */
  async close(): Promise<void> {
    clearTimeout(this.#idle);
    const slots = this.#slots.splice(0);
    for (const slot of slots) rejectJobs(slot, new Error('prepare pool closed'));
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /** Posts a request to the slot's worker (one still starting receives it once it listens). */
  #post(slot: Slot, raw: Buffer, hints: IngestHints, compress: boolean): Promise<Ready> {
    const seq = ++this.#seq;
    const { worker, jobs } = slot;
    if (jobs.size === 0) worker.ref();
    const request: PrepareRequest = { seq, raw, hints, compress };
    worker.postMessage(request);
    return new Promise<Ready>((resolve, reject) => jobs.set(seq, { resolve, reject }));
  }

  #fill(): void {
    while (!this.#broken && this.#slots.length < this.size) this.#slots.push(this.#start());
  }

  #start(): Slot {
    const worker = startWorker();
    worker.unref();
    const slot: Slot = { worker, started: false, jobs: new Map() };
    worker.on('message', (reply: PrepareReply) => {
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
      if (slot.jobs.size === 0) this.#rest(worker);
    });
    const drop = (err: Error) => {
      const at = this.#slots.indexOf(slot);
      if (at < 0) return; // closed
      this.#slots.splice(at, 1);
      if (!slot.started) this.#broken = true;
      rejectJobs(slot, err);
    };
    worker.on('error', drop);
    worker.on('exit', (code) => drop(new Error(`prepare worker exited with code ${code}`)));
    return slot;
  }

  /** A worker without work no longer keeps the process alive; when none has work, all stop soon. */
  #rest(worker: Worker): void {
    worker.unref();
    if (this.#slots.some((s) => s.jobs.size > 0)) return;
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.close(), IDLE_MS);
    this.#idle.unref();
  }
}
