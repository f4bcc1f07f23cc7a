import { setTimeout as sleep } from 'node:timers/promises';
import { busCodecs, PRUNED_SERIALS_PER_MESSAGE } from '../bus/codecs.ts';
import type { Bus } from '../bus/types.ts';
import type { Clock } from '../clock.ts';
import type { RetentionKey } from '../config.ts';
import type { Db, Queryable } from '../db/types.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import { pruneEarthquakeEvents, pruneEewEvents, pruneTelegrams, type PrunePosition } from './prune.ts';

// Arbitrary constant shared by every Namazu process: one node prunes at a time.
const RETENTION_LOCK_KEY = 7_262_420_120;
const DAY_MS = 86_400_000;

export interface PrunerDeps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
}

export interface PrunerOptions {
  retentionDays: Readonly<Record<RetentionKey, number>>;
  /** Pause between runs; 0 = the timer never runs (runOnce still does). */
  intervalMs: number;
  /**
   * Time one batch (one transaction) aims at: the batch size follows it. 0 = by engine: on the
   * embedded engine a statement holds the process's only connection (no telegram is stored
   * meanwhile), so batches stay short there (4 ms); on PostgreSQL they run beside ingest, on the
   * same cores (10 ms: at 50 ms a year's catch-up added 10–20 ms to early warnings' p99).
   */
  batchMs: number;
  /** Embedded engine: quiet time (no telegram committed) a reclaim waits for; 10 s by default. */
  reclaimIdleMs?: number;
}

export interface PruneReport {
  outcome: 'done' | 'busy' | 'stopped';
  /** Telegrams deleted, by classification. */
  telegrams: Record<string, number>;
  /** Events deleted, by projection. */
  events: { earthquake: number; eew: number };
}

const MIN_BATCH = 10;
const MAX_BATCH = 2000;
/**
 * On the embedded engine a VACUUM holds the only connection: no telegram is stored until it ends;
 * it reads every index of the table whatever it deleted, so it costs about the same after an hour
 * of pruning as after a day. Runs therefore only delete there, and the space they free is reclaimed
 * at most once a day (files grow by at most a day of telegrams before it is reused), in a moment
 * when no telegram has arrived for a while (docs/operations.md "Retention", "Space").
 */
const EMBEDDED_RECLAIM_EVERY_MS = 86_400_000;
const EMBEDDED_RECLAIM_IDLE_MS = 10_000;

/**
 * Deletes what is older than its retention, in small batches with a pause after each, so that
 * ingest and delivery go on meanwhile (docs/operations.md "Retention"). On PostgreSQL each batch is
 * a transaction that takes an advisory lock; a node that finds it taken leaves the run to the node
 * holding it.
 */
export class Pruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PruneReport> | undefined;
  private stopped = false;
  /** Ends the wait for a quiet moment when the server stops. */
  private readonly stopping = new AbortController();
  private batchSize = 100;
  private readonly targetMs: number;
  private readonly idleMs: number;
  /** Tables with deleted rows not yet vacuumed. */
  private readonly unreclaimed = new Set<string>();
  /** Server clock time of the last reclaim on the embedded engine (0: none since start). */
  private reclaimedAt = 0;
  /**
   * performance.now() of the last telegram committed, as the bus announced it; the start at first,
   * so that a quiet moment is one the pruner saw whole (its subscription may not be listening yet).
   */
  private lastTelegramAt = performance.now();
  private readonly listening: Promise<() => Promise<void>> | undefined;
  /** Told of every run's report (the store statistics follow). */
  onRun: ((report: PruneReport) => void) | undefined;

  constructor(
    private readonly deps: PrunerDeps,
    private readonly options: PrunerOptions,
  ) {
    this.targetMs = options.batchMs || (deps.db.engine === 'pglite' ? 4 : 10);
    this.idleMs = options.reclaimIdleMs ?? EMBEDDED_RECLAIM_IDLE_MS;
    // The embedded engine reclaims when no telegram has come for a while: it listens for them.
    this.listening =
      deps.db.engine === 'pglite'
        ? busCodecs.telegram
            .subscribe(deps.bus, () => (this.lastTelegramAt = performance.now()))
            .catch((err: unknown) => {
              deps.log.warn({ err }, 'retention cannot tell when ingest is quiet; it reclaims at any time');
              return async () => undefined;
            })
        : undefined;
  }

  /** Runs every intervalMs (the first run one interval after start). */
  start(): void {
    if (this.options.intervalMs <= 0) return;
    const tick = () => {
      this.timer = setTimeout(async () => {
        try {
          await this.runOnce();
        } catch {
          // counted and logged by runOnce
        }
        if (!this.stopped) tick();
      }, this.options.intervalMs);
      this.timer.unref();
    };
    tick();
  }

  /** Stops the timer and ends a run under way after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    await (
      await this.listening
    )?.();
  }

  /** One run over every setting (shared by callers that come while it runs). */
  runOnce(): Promise<PruneReport> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<PruneReport> {
    const { metrics, log } = this.deps;
    const report: PruneReport = { outcome: 'done', telegrams: {}, events: { earthquake: 0, eew: 0 } };
    try {
      report.outcome = await this.prune(report);
    } catch (err) {
      metrics.retentionRuns.inc({ outcome: 'failed' });
      log.error({ err }, 'pruning failed; tried again at the next run');
      throw err;
    }
    metrics.retentionRuns.inc({ outcome: report.outcome });
    const deleted = Object.values(report.telegrams).reduce((a, b) => a + b, 0);
    if (deleted + report.events.earthquake + report.events.eew > 0)
      log.info({ telegrams: report.telegrams, events: report.events }, 'retention pruned');
    // PostgreSQL's autovacuum reclaims there, throttled by its cost delay (migration 150 sets when).
    if (
      this.deps.db.engine === 'pglite' &&
      report.outcome !== 'stopped' &&
      this.unreclaimed.size > 0 &&
      this.deps.clock.now() - this.reclaimedAt >= EMBEDDED_RECLAIM_EVERY_MS &&
      (await this.idle())
    )
      await this.reclaim();
    this.onRun?.(report);
    return report;
  }

  private async prune(report: PruneReport): Promise<PruneReport['outcome']> {
    const now = this.deps.clock.now();
    const cutoffOf = (key: RetentionKey) => {
      const days = this.options.retentionDays[key];
      return days > 0 ? new Date(now - days * DAY_MS) : null;
    };
    // Projections first: a report they drop no longer holds its telegram back.
    for (const [projection, key, prune] of [
      ['earthquake', 'gd.earthquake', pruneEarthquakeEvents],
      ['eew', 'gd.eew', pruneEewEvents],
    ] as const) {
      const cutoff = cutoffOf(key);
      if (!cutoff) continue;
      for (;;) {
        const limit = Math.max(MIN_BATCH, Math.floor(this.batchSize / 10));
        const n = await this.batch((q) => prune(q, cutoff, limit));
        if (n === 'busy' || n === 'stopped') return n;
        report.events[projection] += n;
        this.deps.metrics.gdEventsPruned.inc({ projection }, n);
        if (n > 0) for (const t of ['reports', 'events']) this.unreclaimed.add(`gd_${projection}_${t}`);
        if (n < limit) break;
      }
    }
    for (const key of Object.keys(this.options.retentionDays) as RetentionKey[]) {
      const cutoff = cutoffOf(key);
      if (!cutoff || key.startsWith('gd.')) continue;
      let from: PrunePosition | null = null;
      do {
        const limit = this.batchSize;
        const got = await this.batch((q) => pruneTelegrams(q, key, cutoff, from, limit));
        if (got === 'busy' || got === 'stopped') return got;
        from = got.next;
        if (got.serials.length > 0) {
          report.telegrams[key] = (report.telegrams[key] ?? 0) + got.serials.length;
          this.deps.metrics.telegramsPruned.inc({ classification: key }, got.serials.length);
          await this.announce(got.serials);
          this.unreclaimed.add('telegrams');
        }
      } while (from !== null);
    }
    return 'done';
  }

  /**
   * One batch (`fn` is one statement), timed; then a pause as long as it took (at least 1 ms). On
   * PostgreSQL it runs in a transaction under the lock that keeps it to one node. The embedded data
   * directory is open in this process only (its lock file), so there the statement runs alone: a
   * transaction would hold the one connection across four round trips between threads, each as long
   * as the event loop takes to turn, and an early warning's insert would wait for all of them.
   */
  private async batch<T>(fn: (q: Queryable) => Promise<T>): Promise<T | 'busy' | 'stopped'> {
    if (this.stopped) return 'stopped';
    const { db } = this.deps;
    const started = performance.now();
    const out =
      db.engine === 'pglite'
        ? { value: await fn(db) }
        : await db.tx(async (q) => {
            const [lock] = await q.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS got', [
              RETENTION_LOCK_KEY,
            ]);
            return lock!.got ? { value: await fn(q) } : null;
          });
    const ms = performance.now() - started;
    this.deps.metrics.retentionBatchDuration.observe(ms / 1000);
    if (!out) return 'busy';
    // The next batch is sized so that it takes about the target time.
    const scaled = this.batchSize * Math.min(2, Math.max(0.5, this.targetMs / Math.max(ms, 0.1)));
    this.batchSize = Math.round(Math.min(MAX_BATCH, Math.max(MIN_BATCH, scaled)));
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, ms)));
    return out.value;
  }

  /** Tells every process's telegram cache which serials are gone. */
  private async announce(serials: number[]): Promise<void> {
    for (let i = 0; i < serials.length; i += PRUNED_SERIALS_PER_MESSAGE) {
      await busCodecs.pruned.publish(this.deps.bus, {
        serials: serials.slice(i, i + PRUNED_SERIALS_PER_MESSAGE),
      });
    }
  }

  /**
   * Waits, up to one interval, for a moment when no telegram has been committed for the idle
   * time; false if none came (the reclaim waits for a later run).
   */
  private async idle(): Promise<boolean> {
    const deadline = performance.now() + this.options.intervalMs;
    for (;;) {
      if (this.stopped) return false;
      const quietFor = performance.now() - this.lastTelegramAt;
      if (quietFor >= this.idleMs) return true;
      const wait = this.idleMs - quietFor;
      if (performance.now() + wait > deadline) return false;
      await sleep(wait, undefined, { ref: false, signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  /**
   * Makes the space of deleted rows reusable by later inserts: a VACUUM of each table pruning
   * deleted from, one statement at a time with a pause after each. The embedded engine has no
   * autovacuum, so this is the only one it gets (at most once a day when ingest is quiet), and
   * there a table's out-of-line values (the bodies) are vacuumed in a statement of their own. On
   * PostgreSQL runs leave it to autovacuum, whose cost delay spreads the work where an unthrottled
   * VACUUM took the database server's CPU from ingest; called there, it vacuums at once.
   */
  async reclaim(): Promise<void> {
    for (const table of [...this.unreclaimed]) {
      if (this.stopped) return;
      if (this.deps.db.engine === 'postgres') await this.vacuum(`VACUUM ${table}`);
      else {
        const [toast] = await this.deps.db.query<{ name: string | null }>(
          `SELECT nullif(reltoastrelid, 0)::regclass::text AS name FROM pg_class WHERE oid = $1::regclass`,
          [table],
        );
        await this.vacuum(`VACUUM (PROCESS_TOAST false) ${table}`);
        if (toast?.name) await this.vacuum(`VACUUM ${toast.name}`);
      }
      this.unreclaimed.delete(table);
    }
    this.reclaimedAt = this.deps.clock.now();
  }

  /** One VACUUM, then a pause as long as it took. */
  private async vacuum(sql: string): Promise<void> {
    const started = performance.now();
    await this.deps.db.exec(sql);
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, performance.now() - started)));
  }
}
