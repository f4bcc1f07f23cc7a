/**
 * The signs of life of the serving processes (docs/realtime.md "The connection limit"). Each process
 * holding connections records itself every `LIVENESS_BEAT_MS` under an id of its own start; an open
 * session whose process has not been seen for `PROCESS_DEAD_AFTER_MS` belongs to a dead process and
 * stops counting (socket-sessions.ts `termsAndLiveCount`). Times are the database's own clock, the one clock
 * every process shares.
 */
import type { Queryable } from '../db/types.ts';

export const LIVENESS_BEAT_MS = 1000;
/** Five missed beats: a process whose event loop or pool is held that long is not taken for dead. */
export const PROCESS_DEAD_AFTER_MS = 5000;
/** Records of processes unseen for this long are deleted when a process starts. */
const FORGET_AFTER_MS = 24 * 3600_000;

/**
 * Records that the process is alive. Returns true when it was not seen for `PROCESS_DEAD_AFTER_MS`
 * before (or never): others may have taken it for dead and closed its sessions meanwhile.
 */
export async function recordAlive(q: Queryable, processId: string): Promise<boolean> {
  const rows = await q.query<{ lapsed: boolean | null }>(
    `WITH before AS (SELECT seen_at FROM server_processes WHERE id = $1)
     INSERT INTO server_processes (id, seen_at) VALUES ($1, statement_timestamp())
       ON CONFLICT (id) DO UPDATE SET seen_at = EXCLUDED.seen_at
     RETURNING (SELECT seen_at < statement_timestamp() - make_interval(secs => $2) FROM before) AS lapsed`,
    [processId, PROCESS_DEAD_AFTER_MS / 1000],
  );
  return rows[0]?.lapsed ?? true;
}

/** The processes (in SQL, a set of ids) seen alive. */
const SEEN_PROCESSES = `SELECT p.id FROM server_processes p
  WHERE p.seen_at >= statement_timestamp() - make_interval(secs => ${PROCESS_DEAD_AFTER_MS / 1000})`;

/** The condition on a session `s` (in SQL) that its connection's process is alive. */
export const PROCESS_SEEN = `EXISTS (${SEEN_PROCESSES} AND p.id = s.process_id)`;

/**
 * The condition on a session `s` with a process that its process is not alive: NOT PROCESS_SEEN,
 * with the live processes read once per statement (a hashed set) rather than looked up for each
 * session, for statements over all of an account's sessions (on 297 open sessions, 0.5 ms against
 * 0.9–1.4 ms).
 */
export const PROCESS_UNSEEN = `s.process_id NOT IN (${SEEN_PROCESSES})`;

/** Deletes the records of processes gone for a day (each start of a process adds one). */
export async function forgetGoneProcesses(q: Queryable): Promise<void> {
  await q.query(
    'DELETE FROM server_processes WHERE seen_at < statement_timestamp() - make_interval(secs => $1)',
    [FORGET_AFTER_MS / 1000],
  );
}

/** The process stopped: its sessions were recorded closed, its record goes. */
export async function forgetProcess(q: Queryable, processId: string): Promise<void> {
  await q.query('DELETE FROM server_processes WHERE id = $1', [processId]);
}

/**
 * Opens again those of the process's sessions that another process closed while this one was taken
 * for dead (closed with no close code by the limit check), among the connections it still holds.
 */
export async function reinstateSessions(
  q: Queryable,
  processId: string,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return;
  await q.query(
    `UPDATE socket_sessions SET status = 'open', end_at = NULL
      WHERE id = ANY($1::bigint[]) AND process_id = $2 AND status = 'closed' AND close_code IS NULL`,
    [ids, processId],
  );
}
