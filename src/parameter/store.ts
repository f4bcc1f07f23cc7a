import type { Queryable } from '../db/types.ts';
import type { StationItems, StationKind, StationList } from './stations.ts';

/** An imported list of `kind`, or null when none was imported (the release's own list applies). */
export async function loadImportedList<K extends StationKind>(
  q: Queryable,
  kind: K,
): Promise<StationList<K> | null> {
  const [row] = await q.query<{ change_time: Date; version: string; items: string }>(
    'SELECT change_time, version, items FROM parameter_station_lists WHERE kind = $1',
    [kind],
  );
  if (!row) return null;
  return {
    kind,
    changeTime: row.change_time.toISOString(),
    version: row.version,
    items: JSON.parse(row.items) as StationItems[K],
  };
}

/** Replaces the imported list of its kind in one statement: readers see the old list or the new one. */
export async function saveImportedList(q: Queryable, list: StationList): Promise<void> {
  await q.query(
    `INSERT INTO parameter_station_lists (kind, change_time, version, items) VALUES ($1, $2, $3, $4)
     ON CONFLICT (kind) DO UPDATE SET change_time = EXCLUDED.change_time, version = EXCLUDED.version,
       items = EXCLUDED.items, imported_at = now()`,
    [list.kind, new Date(list.changeTime), list.version, JSON.stringify(list.items)],
  );
}
