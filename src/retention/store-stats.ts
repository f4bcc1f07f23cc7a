import type { Db } from '../db/types.ts';
import type { Clock } from '../clock.ts';
import type { Metrics } from '../metrics.ts';

/** Serials counted per statement: each is short, so the embedded engine never holds the loop long. */
const COUNT_CHUNK = 20_000;

/**
 * Computes the store's figures for /metrics (docs/operations.md "Monitoring"): every table's size,
 * and per classification the telegrams kept and the oldest kept. Counting reads every row, so it
 * runs on a timer in short statements, not at each scrape.
 */
export async function refreshStoreStats(
  deps: { db: Db; clock: Clock; metrics: Metrics },
  classifications: readonly string[],
): Promise<void> {
  const { db, metrics } = deps;
  const tables = await db.query<{ name: string; bytes: number }>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid)::int8 AS bytes
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
  );
  const counts = new Map<string, number>(classifications.map((c) => [c, 0]));
  const [range] = await db.query<{ low: number | null; high: number | null }>(
    'SELECT min(serial) AS low, max(serial) AS high FROM telegrams',
  );
  if (range?.low != null && range.high != null) {
    for (let from = range.low - 1; from < range.high; from += COUNT_CHUNK) {
      const rows = await db.query<{ classification: string; n: number }>(
        `SELECT classification, count(*)::int8 AS n FROM telegrams
         WHERE serial > $1 AND serial <= $2 GROUP BY classification`,
        [from, from + COUNT_CHUNK],
      );
      for (const r of rows) counts.set(r.classification, (counts.get(r.classification) ?? 0) + r.n);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const oldest = new Map<string, Date>();
  for (const classification of counts.keys()) {
    const [row] = await db.query<{ t: Date | null }>(
      'SELECT min(received_time) AS t FROM telegrams WHERE classification = $1',
      [classification],
    );
    if (row?.t) oldest.set(classification, row.t);
  }
  // Set together, after every read: a scrape sees one consistent set.
  metrics.tableBytes.reset();
  for (const t of tables) metrics.tableBytes.set({ table: t.name }, t.bytes);
  for (const [classification, n] of counts) metrics.telegramsKept.set({ classification }, n);
  metrics.oldestKept.reset();
  for (const [classification, t] of oldest) metrics.oldestKept.set({ classification }, t.getTime() / 1000);
  metrics.storeStatsTime.set(deps.clock.now() / 1000);
}
