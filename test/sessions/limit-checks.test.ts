/**
 * What the ping tick asks the store of the accounts a process holds connections of
 * (src/sessions/socket-sessions.ts `missedChanges`, docs/realtime.md "The connection limit"): an
 * account's sessions are counted against its limit when its terms (the limit, the running
 * contracts) changed since the process last found it within them, by whichever path, and not at
 * every tick.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setConnectionLimit } from '../../src/accounts/connection-limit.ts';
import { removeContract } from '../../src/accounts/contracts.ts';
import type { Queryable } from '../../src/db/types.ts';
import { LIVENESS_BEAT_MS, recordAlive, reinstateSessions } from '../../src/sessions/process-liveness.ts';
import { LimitChecks, missedChanges, openSessionsOf } from '../../src/sessions/socket-sessions.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** The process holding the sessions: alive, so they count. */
const PROCESS = 'limit-checks';

let server: TestServer;
let beat: NodeJS.Timeout;
let lastBeat: Promise<unknown> = Promise.resolve();
before(async () => {
  server = await startTestServer();
  // Kept alive as a serving process keeps itself: a busy machine can make the file outlast the time
  // after which a process not seen is taken for dead, and its sessions would then not count.
  await recordAlive(server.ctx.db, PROCESS);
  beat = setInterval(() => (lastBeat = recordAlive(server.ctx.db, PROCESS)), LIVENESS_BEAT_MS);
});
after(async () => {
  clearInterval(beat);
  await lastBeat;
  await server.close();
});

/** `count` open sessions of a new account with `contracts`, opened in id order; their ids. */
async function openSessions(contracts: string[], count: number) {
  const { account } = await server.createAccount({ contracts });
  const rows = await server.ctx.db.query<{ id: number }>(
    `INSERT INTO socket_sessions (account_id, ticket_digest, ticket_hint, classifications, test,
       format_mode, status, start_at, expires_at, ping_at, process_id)
     SELECT $1::bigint, $1::text || '-' || i, 'h', ARRAY['telegram.earthquake'], 'no', 'raw', 'open',
       now() - make_interval(secs => $2::int - i), now(), now(), $3
     FROM generate_series(1, $2::int) AS i RETURNING id`,
    [account.id, count, PROCESS],
  );
  return { accountId: account.id, ids: rows.map((r) => Number(r.id)).sort((a, b) => a - b) };
}

/** What `look` returns, with the rows of socket_sessions it read. */
async function counted<T>(look: (q: Queryable) => Promise<T>) {
  return server.ctx.db.tx(async (q: Queryable) => {
    const read = async () =>
      (
        await q.query<{ n: string }>(
          `SELECT pg_stat_get_xact_tuples_returned('socket_sessions'::regclass)
                + pg_stat_get_xact_tuples_fetched('socket_sessions'::regclass) AS n`,
        )
      )[0]!.n;
    const before = Number(await read());
    const result = await look(q);
    return { result, rowsRead: Number(await read()) - before };
  });
}

/** A tick's look at `held`, with the rows of socket_sessions it read. */
async function tick(held: number[], checks: LimitChecks) {
  const { result: missed, rowsRead } = await counted((q) => missedChanges(q, held, checks));
  return { missed, rowsRead };
}

test("a tick with nothing changed reads the sessions held, not the account's other sessions", async () => {
  const { accountId, ids } = await openSessions(['telegram.earthquake'], 2000);
  await setConnectionLimit(server.ctx.db, accountId, 2000);
  await server.ctx.db.exec('ANALYZE socket_sessions');
  const checks = new LimitChecks();
  const held = ids.slice(0, 3);
  const first = await tick(held, checks);
  assert.deepEqual(first.missed.overLimit, []);
  assert.ok(first.rowsRead >= 2000, `the first look counts the account's sessions (${first.rowsRead})`);
  for (let i = 0; i < 3; i++) {
    const next = await tick(held, checks);
    assert.deepEqual(next.missed, {
      closedByAccount: [],
      beyondLimit: [],
      contractsEnded: [],
      overLimit: [],
    });
    assert.ok(next.rowsRead < 50, `tick ${i + 2} read ${next.rowsRead} rows of socket_sessions`);
  }
});

test('the limit lowered with no announcement: the next tick finds the account over it, and again until the excess is closed', async () => {
  const { accountId, ids } = await openSessions(['telegram.earthquake'], 3);
  const last = ids[2]!;
  await setConnectionLimit(server.ctx.db, accountId, 3);
  const checks = new LimitChecks();
  assert.deepEqual((await tick(ids, checks)).missed.overLimit, []);
  await setConnectionLimit(server.ctx.db, accountId, 2);
  assert.deepEqual((await tick(ids, checks)).missed.overLimit, [accountId]);
  // Nobody closed the excess yet (the choice failed, say): the tick after finds it still.
  assert.deepEqual((await tick(ids, checks)).missed.overLimit, [accountId]);
  await server.ctx.db.query(`UPDATE socket_sessions SET status = 'closed', close_code = 4409 WHERE id = $1`, [
    last,
  ]);
  const closed = (await tick(ids, checks)).missed;
  assert.deepEqual(closed.overLimit, []);
  assert.deepEqual(closed.beyondLimit, [last]);
});

test('a plus contract ended with no announcement: the next tick finds the account over its limit', async () => {
  // telegram.earthquake and websocket.plus2: 3 connections.
  const { accountId, ids } = await openSessions(['telegram.earthquake', 'websocket.plus2'], 3);
  const checks = new LimitChecks();
  assert.deepEqual((await tick(ids, checks)).missed, {
    closedByAccount: [],
    beyondLimit: [],
    contractsEnded: [],
    overLimit: [],
  });
  await removeContract(server.ctx.db, accountId, 'websocket.plus2');
  assert.deepEqual((await tick(ids, checks)).missed.overLimit, [accountId]);
});

test('a classification contract ended with no announcement: the next tick finds the sessions holding it', async () => {
  const { accountId, ids } = await openSessions(['telegram.earthquake', 'eew.forecast'], 1);
  await setConnectionLimit(server.ctx.db, accountId, 5);
  const checks = new LimitChecks();
  assert.deepEqual((await tick(ids, checks)).missed.contractsEnded, []);
  await removeContract(server.ctx.db, accountId, 'telegram.earthquake');
  assert.deepEqual((await tick(ids, checks)).missed.contractsEnded, [accountId]);
});

test('sessions opened again by a process taken for dead: its next tick, told so, finds the account over its limit', async () => {
  const { accountId, ids } = await openSessions(['telegram.earthquake'], 3);
  await setConnectionLimit(server.ctx.db, accountId, 2);
  const [first, second, third] = ids as [number, number, number];
  // The process was taken for dead: its sessions closed with no close code, their slots given away.
  await server.ctx.db.query(`UPDATE socket_sessions SET status = 'closed', end_at = now() WHERE id = $1`, [
    first,
  ]);
  const checks = new LimitChecks();
  assert.deepEqual((await tick([first, second, third], checks)).missed.overLimit, []);
  // It was alive after all and opens them again (liveness.ts), under terms that did not change.
  await reinstateSessions(server.ctx.db, PROCESS, [first]);
  assert.deepEqual((await tick([first, second, third], checks)).missed.overLimit, []);
  checks.forget();
  assert.deepEqual((await tick([first, second, third], checks)).missed.overLimit, [accountId]);
});

test('a connection held after the others were narrowed to the contracts left: the next tick finds it holding the ended one', async () => {
  const { accountId, ids } = await openSessions(['telegram.earthquake', 'eew.forecast'], 2);
  await setConnectionLimit(server.ctx.db, accountId, 5);
  const [narrowed, late] = ids as [number, number];
  const checks = new LimitChecks();
  assert.deepEqual((await tick([narrowed], checks)).missed.contractsEnded, []);
  await removeContract(server.ctx.db, accountId, 'telegram.earthquake');
  // The process heard the announcement and narrowed the connection it held; the other session's
  // ticket was redeemed before the contract ended, its connection not yet held.
  await server.ctx.db.query(`UPDATE socket_sessions SET classifications = '{}' WHERE id = $1`, [narrowed]);
  assert.deepEqual((await tick([narrowed], checks)).missed.contractsEnded, []);
  assert.deepEqual((await tick([narrowed, late], checks)).missed.contractsEnded, [accountId]);
});

test("a contract change narrows the connections a process holds, reading their sessions and not the account's others", async () => {
  const { accountId, ids } = await openSessions(['telegram.earthquake'], 2000);
  await server.ctx.db.exec('ANALYZE socket_sessions');
  const held = ids.slice(0, 3);
  const { result, rowsRead } = await counted((q) => openSessionsOf(q, accountId, held));
  assert.deepEqual(
    result.sessions.map((s) => s.id).sort((a, b) => a - b),
    held,
  );
  assert.ok(rowsRead < 50, `${rowsRead} rows of socket_sessions read`);
});
