import type { Queryable } from '../db/types.ts';

/**
 * The statements of retention (docs/operations.md "Retention"): each deletes at most `limit` rows
 * in the caller's transaction, oldest first, and says what it deleted.
 */

/** Where a pass over one classification stands: past every telegram it kept up to here. */
export interface PrunePosition {
  receivedTime: Date;
  serial: number;
}

export interface PrunedTelegrams {
  serials: number[];
  /** Position after the last telegram looked at (deleted or kept), or null when none was left. */
  next: PrunePosition | null;
}

/**
 * Deletes the oldest telegrams of a classification received before `cutoff` (XML, A/N, binary and
 * JSON conversions alike), starting after `from`. A JSON telegram that a kept report of /v2/gd
 * names is kept with its report (those projections have retention of their own), and so is the XML
 * it was converted from: a conversion without its source would make the same XML, ingested again,
 * collide with it (one conversion per source id) instead of being stored anew.
 */
export async function pruneTelegrams(
  q: Queryable,
  classification: string,
  cutoff: Date,
  from: PrunePosition | null,
  limit: number,
): Promise<PrunedTelegrams> {
  const after = from
    ? 'AND (t.received_time, t.serial) > ($4::timestamptz, $5::int8)'
    : 'AND $4::timestamptz IS NULL AND $5::int8 IS NULL';
  const rows = await q.query<{ serial: number; received_time: Date; deleted: boolean }>(
    `WITH candidates AS (
       SELECT t.serial, t.received_time,
         EXISTS (
           SELECT 1 FROM telegrams j
           WHERE (j.serial = t.serial OR (t.format = 'xml' AND j.original_id = t.id))
             AND (EXISTS (SELECT 1 FROM gd_earthquake_reports g WHERE g.serial = j.serial)
               OR EXISTS (SELECT 1 FROM gd_eew_reports g WHERE g.serial = j.serial))
         ) AS referenced
       FROM telegrams t
       WHERE t.classification = $1 AND t.received_time < $2 ${after}
       ORDER BY t.received_time, t.serial LIMIT $3
     ), deleted AS (
       DELETE FROM telegrams t USING candidates c WHERE t.serial = c.serial AND NOT c.referenced
       RETURNING t.serial
     )
     SELECT c.serial, c.received_time, d.serial IS NOT NULL AS deleted
     FROM candidates c LEFT JOIN deleted d ON d.serial = c.serial ORDER BY c.received_time, c.serial`,
    [classification, cutoff, limit, from?.receivedTime ?? null, from?.serial ?? null],
  );
  const last = rows.at(-1);
  return {
    serials: rows.filter((r) => r.deleted).map((r) => r.serial),
    next: last && rows.length === limit ? { receivedTime: last.received_time, serial: last.serial } : null,
  };
}

/**
 * Deletes merged earthquake events whose newest report was received before `cutoff`, with all
 * their reports. A report's reception is its JSON telegram's (kept as long as the report is), or its
 * publication time should that telegram be gone. Returns how many events were deleted.
 */
export async function pruneEarthquakeEvents(q: Queryable, cutoff: Date, limit: number): Promise<number> {
  const rows = await q.query<{ event_id: string }>(
    `WITH received AS (
       SELECT r.event_id, coalesce(t.received_time, r.press_time) AS at
       FROM gd_earthquake_reports r LEFT JOIN telegrams t ON t.serial = r.serial
     ), old AS (
       SELECT event_id FROM received GROUP BY event_id HAVING max(at) < $1 LIMIT $2
     ), reports AS (
       DELETE FROM gd_earthquake_reports r USING old WHERE r.event_id = old.event_id
     )
     DELETE FROM gd_earthquake_events e USING old WHERE e.event_id = old.event_id RETURNING e.event_id`,
    [cutoff, limit],
  );
  return rows.length;
}

/**
 * Deletes early-warning events whose newest report was received before `cutoff`, with all their
 * reports (final or not). Returns how many events were deleted.
 */
export async function pruneEewEvents(q: Queryable, cutoff: Date, limit: number): Promise<number> {
  const rows = await q.query<{ event_id: string }>(
    `WITH old AS (
       SELECT DISTINCT r.event_id FROM gd_eew_reports r
       WHERE r.received_time < $1
         AND NOT EXISTS (SELECT 1 FROM gd_eew_reports n WHERE n.event_id = r.event_id AND n.received_time >= $1)
       LIMIT $2
     ), reports AS (
       DELETE FROM gd_eew_reports r USING old WHERE r.event_id = old.event_id RETURNING r.event_id
     ), events AS (
       DELETE FROM gd_eew_events e USING old WHERE e.event_id = old.event_id
     )
     SELECT DISTINCT event_id FROM reports`,
    [cutoff, limit],
  );
  return rows.length;
}
