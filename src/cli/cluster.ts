/**
 * `namazu serve --workers N`: the primary process forks N workers that share the listening port
 * (node:cluster). Each worker is a whole server; they share PostgreSQL and the bus, so a telegram
 * ingested on any worker reaches the WebSockets of every worker. The primary restarts a worker that
 * dies, and on SIGTERM/SIGINT stops them all (each closes its WebSockets with 4503).
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';

/** A worker that dies sooner than this after starting is not restarted (it would crash-loop). */
const MIN_LIFETIME_MS = 5000;

export function runPrimary(workers: number, log: (msg: string) => void): Promise<never> {
  let stopping = false;
  const startedAt = new Map<Worker, number>();
  const fork = () => startedAt.set(cluster.fork(), Date.now());

  cluster.on('exit', (worker, code, signal) => {
    const started = startedAt.get(worker) ?? 0;
    startedAt.delete(worker);
    if (stopping) {
      if (startedAt.size === 0) process.exit(0);
      return;
    }
    log(`worker ${worker.process.pid} exited (${signal ?? code})`);
    if (Date.now() - started >= MIN_LIFETIME_MS) fork();
    else if (startedAt.size === 0) {
      log('every worker failed at start; stopping');
      process.exit(1);
    }
  });

  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (startedAt.size === 0) process.exit(0);
    for (const worker of startedAt.keys()) worker.process.kill('SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let i = 0; i < workers; i++) fork();
  return new Promise<never>(() => {});
}

/** True in the primary of a multi-worker serve: it forks and supervises instead of serving. */
export function isClusterPrimary(workers: number): boolean {
  return workers > 1 && cluster.isPrimary;
}

/** Only the first worker does once-per-installation work (the demo setup). */
export function isFirstWorker(): boolean {
  return cluster.isPrimary || cluster.worker?.id === 1;
}
