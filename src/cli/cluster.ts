/**
 * `namazu serve --workers N`: the primary process forks N workers that share the listening port
 * (node:cluster). Each worker is a whole server; they share PostgreSQL and the bus, so a telegram
 * ingested on any worker reaches the WebSockets of every worker. The primary restarts a worker that
 * dies (one that dies at its start, after a pause), and on SIGTERM/SIGINT stops them all (each
 * closes its WebSockets with 4503).
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';

/**
 * A worker that dies sooner than this after starting failed at its start (the database unreachable,
 * say): it is restarted after this long, so that it does not crash-loop, unless no worker is left.
 */
const MIN_LIFETIME_MS = 5000;
/** Tells each worker its slot (0 … N-1). */
const SLOT_VARIABLE = 'NAMAZU_WORKER_SLOT';

export function runPrimary(workers: number, log: (msg: string) => void): Promise<never> {
  let stopping = false;
  const startedAt = new Map<Worker, number>();
  // A restarted worker takes the slot of the one it replaces, so slot 0 always exists.
  const slots = new Map<Worker, number>();
  const fork = (slot: number) => {
    const worker = cluster.fork({ [SLOT_VARIABLE]: String(slot) });
    startedAt.set(worker, Date.now());
    slots.set(worker, slot);
  };

  cluster.on('exit', (worker, code, signal) => {
    const started = startedAt.get(worker) ?? 0;
    const slot = slots.get(worker) ?? 0;
    startedAt.delete(worker);
    slots.delete(worker);
    if (stopping) {
      if (startedAt.size === 0) process.exit(0);
      return;
    }
    log(`worker ${worker.process.pid} exited (${signal ?? code})`);
    if (Date.now() - started >= MIN_LIFETIME_MS) fork(slot);
    else if (startedAt.size === 0) {
      log('every worker failed at start; stopping');
      process.exit(1);
    } else {
      // Left empty, the slot would stay so: slot 0 is the one that runs the network sources.
      setTimeout(() => {
        if (!stopping) fork(slot);
      }, MIN_LIFETIME_MS);
    }
  });

  let stoppedBy: NodeJS.Signals | null = null;
  const stop = (signal: NodeJS.Signals) => {
    // The same signal again: the workers are killed and the primary exits now.
    if (stoppedBy === signal) {
      for (const worker of startedAt.keys()) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    if (stopping) return;
    stopping = true;
    stoppedBy = signal;
    if (startedAt.size === 0) process.exit(0);
    for (const worker of startedAt.keys()) worker.process.kill('SIGTERM');
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  for (let slot = 0; slot < workers; slot++) fork(slot);
  return new Promise<never>(() => {});
}

/** True in the primary of a multi-worker serve: it forks and supervises instead of serving. */
export function isClusterPrimary(workers: number): boolean {
  return workers > 1 && cluster.isPrimary;
}

/**
 * Only the worker of slot 0 (or a single process) does what must happen once per node: the demo
 * setup, the network sources. A worker that replaces a dead one inherits its slot.
 */
export function isFirstWorker(): boolean {
  return cluster.isPrimary || process.env[SLOT_VARIABLE] === '0';
}
