import { classifications } from '../classifications.ts';
import type { Config } from '../config.ts';
import { Pruner, type PrunerDeps } from './pruner.ts';
import { refreshStoreStats } from './store-stats.ts';

/** How often the store statistics of /metrics are computed again. */
const STATS_INTERVAL_MS = 300_000;

export interface Retention {
  pruner: Pruner;
  /** Computes the store statistics now. */
  refreshStats(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The pruning timer and the store statistics of one server process (docs/operations.md
 * "Retention", "Monitoring"). Statistics are computed at start, every five minutes and after each
 * pruning run that deleted something.
 */
export function startRetention(
  deps: PrunerDeps,
  config: Pick<Config, 'retentionDays' | 'retentionIntervalMs' | 'retentionBatchMs'>,
): Retention {
  const pruner = new Pruner(deps, {
    retentionDays: config.retentionDays,
    intervalMs: config.retentionIntervalMs,
    batchMs: config.retentionBatchMs,
  });
  let stats: Promise<void> | undefined;
  const refreshStats = () =>
    (stats ??= refreshStoreStats(deps, classifications)
      .catch((err) => deps.log.warn({ err }, 'store statistics failed'))
      .finally(() => (stats = undefined)));
  pruner.onRun = (report) => {
    if (report.outcome === 'done') void refreshStats();
  };
  for (const [classification, days] of Object.entries(config.retentionDays))
    deps.metrics.retentionDays.set({ classification }, days);
  pruner.start();
  void refreshStats();
  const timer = setInterval(() => void refreshStats(), STATS_INTERVAL_MS);
  timer.unref();
  return {
    pruner,
    refreshStats,
    async stop() {
      clearInterval(timer);
      await pruner.stop();
      await stats;
    },
  };
}
