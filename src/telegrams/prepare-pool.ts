import { Worker } from 'node:worker_threads';
import type { PreparedTelegram, IngestHints } from './prepare.ts';
import type { Ready } from './ready.ts';

/** A telegram to prepare, as posted to a worker. */
export interface PrepareRequest {
  seq: number;
  raw: Uint8Array;
  hints: IngestHints;
}

/** What a worker posts: that it has loaded its code, or the outcome of one request. */
export type PrepareReply = { started: true } | { seq: number; ready: Ready } | { seq: number; error: string };

/** Idle workers are kept this long for the next bulk ingest, then stopped. */
const IDLE_MS = 10_000;

/**
 * A prepare worker: the bundle's JavaScript beside this module (scripts/build.js builds it as its
 * own entry), or, when running from the TypeScript sources, a small script that registers the
 * TypeScript loader in the worker first (a worker does not inherit a loader on Node 20).
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./prepare-worker.js', import.meta.url));
  const loader = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const code = JSON.stringify(new URL('./prepare-worker.ts', import.meta.url).href);
  return new Worker(`import(${loader}).then(({ register }) => (register(), import(${code})));`, {
    eval: true,
  });
}

/** The Ready with `body` of its telegram and of its conversion replaced by `f`'s. */
function withBodies(ready: Ready, f: (body: Uint8Array) => Buffer): Ready {
  if (!ready.ok) return ready;
  const rebody = (t: PreparedTelegram): PreparedTelegram => ({ ...t, body: f(t.body) });
  const { conversion } = ready;
  return {
    ok: true,
    telegram: rebody(ready.telegram),
    conversion: conversion?.ok ? { ...conversion, telegram: rebody(conversion.telegram) } : conversion,
  };
}

/** The bodies of a prepared telegram as standalone copies, so they can be transferred, not cloned. */
export function transferableReady(prepared: Ready): { ready: Ready; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const ready = withBodies(prepared, (body) => {
    const copy = new Uint8Array(body);
    transfer.push(copy.buffer);
    return copy as Buffer;
  });
  return { ready, transfer };
}

/** A posted Ready as this thread's: bodies arrive as Uint8Array and become Buffers again. */
const receivedReady = (ready: Ready): Ready =>
  withBodies(ready, (body) => Buffer.from(body.buffer, body.byteOffset, body.byteLength));

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
 * Worker threads that prepare telegrams (parse, classify, identify, convert: `prepareForIngest`) for
 * bulk ingest, so that this work runs on other cores while the ingesting thread stores (docs/
 * telegrams.md, "Bulk ingest"). Workers start on first use and load their code in the background:
 * until one has, `prepare` returns null and the caller prepares inline, so a short ingest never
 * waits for them. They keep the process alive only while they have work, and stop after IDLE_MS
 * without any. A worker that fails is dropped with its jobs rejected (the caller prepares those
 * inline); if one fails before it ever started, the pool stays empty for the life of the process.
 */
export class PreparePool {
  readonly #slots: Slot[] = [];
  #seq = 0;
  #broken = false;
  #idle?: NodeJS.Timeout;

  constructor(readonly size: number) {}

  /** The telegram prepared by a worker, or null when no worker has started yet. */
  prepare(raw: Buffer, hints: IngestHints): Promise<Ready> | null {
    this.#fill();
    clearTimeout(this.#idle);
    let slot: Slot | undefined;
    for (const s of this.#slots) if (s.started && (!slot || s.jobs.size < slot.jobs.size)) slot = s;
    if (!slot) return null;
    const seq = ++this.#seq;
    const { worker, jobs } = slot;
    if (jobs.size === 0) worker.ref();
    const request: PrepareRequest = { seq, raw, hints };
    worker.postMessage(request);
    return new Promise<Ready>((resolve, reject) => jobs.set(seq, { resolve, reject }));
  }

  /** Stops every worker now (their pending jobs are rejected). */
  async close(): Promise<void> {
    clearTimeout(this.#idle);
    const slots = this.#slots.splice(0);
    for (const slot of slots) rejectJobs(slot, new Error('prepare pool closed'));
    await Promise.all(slots.map((s) => s.worker.terminate()));
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
      else job.resolve(receivedReady(reply.ready));
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
