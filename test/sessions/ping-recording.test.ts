/**
 * The pongs a process records at each ping tick (src/sessions/socket-sessions.ts `recordPings`,
 * docs/operations.md "Sizing"): every open session of a process gets its `ping` time at every tick,
 * so the update must be cheap. No index reads `ping_at`: with room on the page the row is updated in
 * place (a HOT update), with no new index entry and a fraction of the WAL.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Db, Queryable } from '../../src/db/types.ts';
import { recordPings } from '../../src/sessions/socket-sessions.ts';
import { openTestDb, type TestDb } from '../support/database.ts';

/** Processes sharing the table, their sessions interleaved on its pages as connections come. */
const PROCESSES = 10;
const SESSIONS = 2000;

let testDb: TestDb;
let db: Db;
before(async () => {
  testDb = await openTestDb();
  db = testDb.db;
});
after(() => testDb.close());

/** `SESSIONS` open sessions of one account, opened in turn by each process; the ids each holds. */
async function openSessions(): Promise<number[][]> {
  const [account] = await db.query<{ id: number }>(
    `INSERT INTO accounts (email, password_hash, connection_limit)
     VALUES ('pings@example.com', 'x', $1) RETURNING id`,
    [SESSIONS],
  );
  // Columns as a redeemed ticket leaves them (digests of 43 characters, an address, a server).
  const rows = await db.query<{ id: number; p: number }>(
    `INSERT INTO socket_sessions (account_id, ticket_digest, ticket_hint, classifications, test,
       format_mode, app_name, status, start_at, expires_at, ping_at, ip_address, server,
       credential_digest, process_id)
     SELECT $1, rpad(i::text, 43, 'd'), 'hhhhhhhh', ARRAY['telegram.earthquake'], 'no', 'json',
       'an application', 'open', now(), now(), now(), '192.0.2.10', 'namazu-1/worker-3',
       rpad(i::text, 43, 'c'), 'process-' || (i % $3)
     FROM generate_series(1, $2) AS i
     RETURNING id, split_part(process_id, '-', 2)::int AS p`,
    [account!.id, SESSIONS, PROCESSES],
  );
  const held: number[][] = Array.from({ length: PROCESSES }, () => []);
  for (const r of rows) held[r.p]!.push(Number(r.id));
  return held;
}

/** Records the pongs of `ids`: how many rows it updated, and how many of them in place. */
async function recordCounted(ids: number[], at: number) {
  return db.tx(async (q: Queryable) => {
    // The counts of updates not yet reported to the statistics, this transaction's and earlier ones'.
    const counts = async () => {
      const [row] = await q.query<{ updated: string; hot: string }>(
        `SELECT pg_stat_get_xact_tuples_updated('socket_sessions'::regclass) AS updated,
                pg_stat_get_xact_tuples_hot_updated('socket_sessions'::regclass) AS hot`,
      );
      return { updated: Number(row!.updated), hot: Number(row!.hot) };
    };
    const before = await counts();
    await recordPings(q, ids, at);
    const after = await counts();
    return { updated: after.updated - before.updated, hot: after.hot - before.hot };
  });
}

test("a process's pongs update its sessions in place, tick after tick", async () => {
  const held = (await openSessions())[0]!;
  const start = Date.now();
  for (const tick of [1, 2]) {
    const at = start + tick * 30_000;
    const counts = await recordCounted(held, at);
    assert.deepEqual(counts, { updated: held.length, hot: held.length }, `tick ${tick}`);
    const recorded = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM socket_sessions WHERE id = ANY($1::bigint[]) AND ping_at = $2`,
      [held, new Date(at)],
    );
    assert.equal(recorded[0]!.n, held.length);
  }
});
