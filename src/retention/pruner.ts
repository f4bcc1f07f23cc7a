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
   * embedded engine a statement holds the process's only connection and its event loop, so batches
   * stay short there (4 ms); on PostgreSQL they run beside ingest (50 ms).
   */
  batchMs: number;
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
 * On the embedded engine, telegrams deleted between two VACUUMs: a VACUUM runs on the server's
 * thread for as long as it takes, which grows with the dead rows it finds, so a long run vacuums
 * as it goes instead of once at its end.
 */
const EMBEDDED_VACUUM_EVERY = 1000;

/**
 * Deletes what is older than its retention, in small transactions with a pause after each, so that
 * ingest and delivery go on meanwhile (docs/operations.md "Retention"). Each batch takes an advisory
 * lock for its transaction; a node that finds it taken leaves the run to the node holding it.
 */
export class Pruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PruneReport> | undefined;
  private stopped = false;
  private batchSize = 100;
  private deletedSinceVacuum = 0;
  private readonly targetMs: number;
  /** Told of every run's report (the store statistics follow). */
  onRun: ((report: PruneReport) => void) | undefined;

  constructor(
    private readonly deps: PrunerDeps,
    private readonly options: PrunerOptions,
  ) {
    this.targetMs = options.batchMs || (deps.db.engine === 'pglite' ? 4 : 50);
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
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
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
    if (deleted + report.events.earthquake + report.events.eew > 0) {
      log.info({ telegrams: report.telegrams, events: report.events }, 'retention pruned');
      if (report.outcome !== 'stopped') await this.reclaim(report);
    }
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
          this.deletedSinceVacuum += got.serials.length;
          if (this.deps.db.engine === 'pglite' && this.deletedSinceVacuum >= EMBEDDED_VACUUM_EVERY)
            await this.vacuum('telegrams');
        }
      } while (from !== null);
    }
    return 'done';
  }

  /** One transaction under the lock, timed; then a pause as long as it took (at least 1 ms). */
  private async batch<T>(fn: (q: Queryable) => Promise<T>): Promise<T | 'busy' | 'stopped'> {
    if (this.stopped) return 'stopped';
    const started = performance.now();
    const out = await this.deps.db.tx(async (q) => {
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
   * Makes the space of deleted rows reusable. PostgreSQL's autovacuum would too, later; the
   * embedded engine has no autovacuum, so this VACUUM is the only one it gets.
   */
  private async reclaim(report: PruneReport): Promise<void> {
    const tables = ['telegrams'];
    if (report.events.earthquake > 0) tables.push('gd_earthquake_reports', 'gd_earthquake_events');
    if (report.events.eew > 0) tables.push('gd_eew_reports', 'gd_eew_events');
    for (const table of tables) {
      if (this.stopped) return;
      await this.vacuum(table);
    }
  }

  private async vacuum(table: string): Promise<void> {
    if (table === 'telegrams') this.deletedSinceVacuum = 0;
    const started = performance.now();
    await this.deps.db.exec(`VACUUM ${table}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, performance.now() - started)));
  }
}
