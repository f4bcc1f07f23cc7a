/**
 * Session starts and ticket redemptions written in batches (src/sessions/socket-sessions.ts): a
 * batch decides its requests as if they ran one after another, in the order they came, under the
 * account's connection limit, and a ticket opens at most once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setConnectionLimit } from '../../src/accounts/connection-limit.ts';
import {
  openSession,
  sessionStore,
  startSession,
  type SessionStore,
} from '../../src/sessions/socket-sessions.ts';
import { recordAlive } from '../../src/sessions/process-liveness.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CLASSES = ['telegram.earthquake'];
const spec = {
  classifications: CLASSES,
  types: null,
  test: 'no',
  formatMode: 'json',
  appName: 'batch',
} as const;

let server: TestServer;
let store: SessionStore;
before(async () => {
  server = await startTestServer();
  store = sessionStore(server.ctx.db, server.ctx.pepper, server.ctx.config.pingIntervalMs);
  await recordAlive(server.ctx.db, PROCESS);
});
after(() => server.close());

async function account(limit: number): Promise<number> {
  const { account } = await server.createAccount({ contracts: CLASSES });
  await setConnectionLimit(server.ctx.db, account.id, limit);
  return account.id;
}

const statuses = async (accountId: number) =>
  (
    await server.ctx.db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM socket_sessions WHERE account_id = $1 GROUP BY status ORDER BY status`,
      [accountId],
    )
  ).map((r) => `${r.status} ${r.n}`);

/** The process that holds the opened connections: alive, so its sessions keep counting. */
const PROCESS = 'session-batches';
const opening = () => ({ ipAddress: '192.0.2.1', server: 'test', processId: PROCESS, now: Date.now() });

test('40 concurrent starts at a limit of 10: the first 10 to come get a ticket, the others are full', async () => {
  const id = await account(10);
  const outcomes = await Promise.all(
    Array.from({ length: 40 }, (_, i) => startSession(store, id, { ...spec, appName: `s${i}` }, Date.now())),
  );
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? 'ok' : o.reason)),
    [...Array<string>(10).fill('ok'), ...Array<string>(30).fill('full')],
  );
  const tickets = new Set(outcomes.flatMap((o) => (o.ok ? [o.ticket] : [])));
  assert.equal(tickets.size, 10);
  assert.deepEqual(
    outcomes.flatMap((o) => (o.ok ? [o.session.appName] : [])),
    Array.from({ length: 10 }, (_, i) => `s${i}`),
  );
  assert.deepEqual(await statuses(id), ['waiting 10']);
});

test('a start naming nothing contracted is refused alone; the batch around it goes on', async () => {
  const id = await account(5);
  const outcomes = await Promise.all([
    startSession(store, id, spec, Date.now()),
    startSession(store, id, spec, Date.now()),
    startSession(store, id, { ...spec, classifications: ['eew.forecast'] }, Date.now()),
    startSession(store, id, spec, Date.now()),
  ]);
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? 'ok' : o.reason)),
    ['ok', 'ok', 'no-contract', 'ok'],
  );
});

test('concurrent redemptions after the limit shrank are decided one after another; a ticket opens once', async () => {
  const id = await account(10);
  const started = await Promise.all(
    Array.from({ length: 10 }, () => startSession(store, id, spec, Date.now())),
  );
  const tickets = started.map((s) => (s.ok ? s.ticket : assert.fail('start refused')));
  await setConnectionLimit(server.ctx.db, id, 4);
  const outcomes = await Promise.all([
    ...tickets.map((t) => openSession(store, t, opening())),
    openSession(store, tickets[0]!, opening()),
  ]);
  // A ticket not yet redeemed holds its slot: a redemption is refused while the others waiting
  // fill the limit, so of ten waiting at a limit of four, the last four redeemed open. (Which
  // redemption comes first is the order of their owners' look-ups, not of the calls.)
  const decided = outcomes.map((o) => (o.ok ? 'ok' : o.reason));
  assert.deepEqual([...decided].sort(), [
    'full',
    'full',
    'full',
    'full',
    'full',
    'full',
    'ok',
    'ok',
    'ok',
    'ok',
    'unknown',
  ]);
  // Of the two redemptions of one ticket, one found it used.
  assert.deepEqual(
    [decided[0], decided[10]].filter((d) => d === 'unknown'),
    ['unknown'],
  );
  for (const o of outcomes.filter((o) => o.ok)) {
    assert.ok(o.ok);
    assert.equal(o.session.status, 'open');
    assert.equal(o.session.ipAddress, '192.0.2.1');
  }
  assert.deepEqual(await statuses(id), ['closed 6', 'open 4']);
  // Used tickets, opened or refused, open nothing again.
  const again = await Promise.all(tickets.map((t) => openSession(store, t, opening())));
  assert.ok(again.every((o) => !o.ok && o.reason === 'unknown'));
});

test('an expired ticket is unknown and stays waiting; the others of its batch open', async () => {
  const id = await account(3);
  const old = await startSession(store, id, spec, Date.now() - 301_000);
  const fresh = await startSession(store, id, spec, Date.now());
  assert.ok(old.ok && fresh.ok);
  const outcomes = await Promise.all([
    openSession(store, fresh.ticket, opening()),
    openSession(store, old.ticket, opening()),
  ]);
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? 'ok' : o.reason)),
    ['ok', 'unknown'],
  );
  assert.deepEqual(await statuses(id), ['open 1', 'waiting 1']);
});

test("two processes' batches at once never exceed the limit together: the account's row lock orders them", async () => {
  const id = await account(7);
  // A second store is a second process's lanes: its batches run beside this one's.
  const other = sessionStore(server.ctx.db, server.ctx.pepper, server.ctx.config.pingIntervalMs);
  const outcomes = await Promise.all(
    Array.from({ length: 40 }, (_, i) => startSession(i % 2 ? other : store, id, spec, Date.now())),
  );
  assert.equal(outcomes.filter((o) => o.ok).length, 7);
  assert.deepEqual(await statuses(id), ['waiting 7']);
  const tickets = outcomes.flatMap((o) => (o.ok ? [o.ticket] : []));
  await setConnectionLimit(server.ctx.db, id, 3);
  const opened = await Promise.all(tickets.map((t, i) => openSession(i % 2 ? other : store, t, opening())));
  assert.equal(opened.filter((o) => o.ok).length, 3);
  assert.deepEqual(await statuses(id), ['closed 4', 'open 3']);
});

test("redemptions of several accounts' tickets at once find their accounts in two statements; an unknown ticket opens nothing", async () => {
  const ids = [await account(2), await account(2), await account(2)];
  const tickets: string[] = [];
  for (const id of ids)
    for (let i = 0; i < 2; i++) {
      const started = await startSession(store, id, spec, Date.now());
      assert.ok(started.ok);
      tickets.push(started.ticket);
    }
  const { db } = server.ctx;
  let ownerLookups = 0;
  const counting: typeof db = {
    engine: db.engine,
    query: (text, params) => {
      if (/SELECT ticket_digest, account_id/.test(text)) ownerLookups++;
      return db.query(text, params);
    },
    exec: (text) => db.exec(text),
    tx: (fn) => db.tx(fn),
    close: () => db.close(),
  };
  const lanes = sessionStore(counting, server.ctx.pepper, server.ctx.config.pingIntervalMs);
  const outcomes = await Promise.all(
    [...tickets, 'no-such-ticket'].map((t) => openSession(lanes, t, opening())),
  );
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? o.session.accountId : o.reason)),
    [ids[0], ids[0], ids[1], ids[1], ids[2], ids[2], 'unknown'],
  );
  // The first look-up runs at once; the six that came while it ran, together after it.
  assert.equal(ownerLookups, 2);
  for (const id of ids) assert.deepEqual(await statuses(id), ['open 2']);
});
