// The queuer writes a telegram's deliveries in slices (a small first one, so that the first posts
// leave early), the position moved by the last: a process that dies between two slices leaves the
// first slice queued and the position where it was, and the next round (any process's) queues the
// rest, none twice. The death is the failure of the second transaction, on the real database.
// And the position never moves past a telegram owed to a subscription created while it was queued;
// an account disabled, or a contract ended or begun, changes what the queuer matches at once, with no
// announcement on the bus.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createAccount, disableAccount } from '../../src/accounts/accounts.ts';
import { addContract, removeContract } from '../../src/accounts/contracts.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { SecretBox } from '../../src/security/sealed.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { loadTelegramsAfter } from '../../src/telegrams/store.ts';
import {
  claimDue,
  pruneEnded,
  recordDelivered,
  recordFailure,
  redeliver,
  type ClaimedDelivery,
} from '../../src/webhooks/deliveries.ts';
import { QUEUE_LOCK_KEY, Queuer } from '../../src/webhooks/queuer.ts';
import { WEBHOOK_SECRET_PURPOSE } from '../../src/webhooks/service.ts';
import { createSubscription, deleteSubscription, rotateSecret } from '../../src/webhooks/subscriptions.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { heldTransaction, lockWaiters } from '../support/races.ts';
import { webhookSpec } from '../support/webhook-spec.ts';
import { fixture } from '../support/fixtures.ts';

const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));
/** More than the first slice (128): the telegram's rows take two transactions. */
const SUBSCRIPTIONS = 140;

/** Subscribes the account to early warnings at `url`; returns the subscription's id. */
async function subscribeOne(db: Db, box: SecretBox, accountId: number, url: string): Promise<number> {
  const spec = webhookSpec(url, { classifications: ['eew.forecast', 'eew.warning'] });
  const created = await createSubscription(db, box, accountId, spec, new URL(url).hostname);
  assert.ok(created.ok);
  return created.subscription.id;
}

async function eewAccount(db: Db, email: string): Promise<number> {
  const account = await createAccount(db, { email, password: 'password-1' });
  await addContract(db, account.id, 'eew.forecast');
  await addContract(db, account.id, 'eew.warning');
  return account.id;
}

async function subscribe(db: Db, box: SecretBox): Promise<void> {
  for (let i = 0; i < SUBSCRIPTIONS; i += 20) {
    const accountId = await eewAccount(db, `slices${i}@example.test`);
    for (let j = i; j < i + 20; j++)
      await subscribeOne(db, box, accountId, `http://127.0.0.${1 + (j % 7)}:9/hook${j}`);
  }
}

/** A queuer whose workers take what `take` says, and record what they were handed. */
function queuerOn(db: Db, take: boolean, handed: ClaimedDelivery[], errors: unknown[]): Queuer {
  return new Queuer(
    db,
    { after: (after, limit) => loadTelegramsAfter(db, after, limit) },
    {
      wouldTake: (hosts) => hosts.map(() => take),
      take: (claimed) => handed.push(...claimed),
      prepare: () => {},
      leaseMs: 60_000,
    },
    () => {},
    (err) => errors.push(err),
  );
}

test('a queuer that dies between slices leaves its first slice queued; the next round queues the rest once', () =>
  withDatabase(async ({ db, bus, box }) => {
    await subscribe(db, box);
    const stored = await ingestTelegram({ db, bus }, EEW, { receivedTime: Date.now() });
    assert.ok(stored.ok);
    const serial = stored.stored.serial;

    // The first process: its second transaction fails, as if the process died there.
    let transactions = 0;
    const dying: Db = {
      ...db,
      tx: (fn) => (++transactions === 2 ? Promise.reject(new Error('killed')) : db.tx(fn)),
    };
    const handed: ClaimedDelivery[] = [];
    const errors: unknown[] = [];
    await queuerOn(dying, true, handed, errors).settled();
    assert.equal(errors.length, 1);
    const rows = async () =>
      db.query<{ subscription_id: number; attempts: number; message_id: string }>(
        'SELECT subscription_id, attempts, message_id FROM webhook_deliveries WHERE serial = $1',
        [serial],
      );
    const first = await rows();
    assert.equal(first.length, 128, 'the first slice is committed');
    assert.ok(
      first.every((r) => r.attempts === 1),
      'claimed for the process that queued them',
    );
    assert.deepEqual(
      handed.map((d) => d.id).sort(),
      (await db.query<{ id: number }>('SELECT id FROM webhook_deliveries')).map((r) => r.id).sort(),
      'handed to its workers after the commit, whole',
    );
    assert.ok(handed.every((d) => d.messageId === `msg_${d.subscriptionId}_${serial}` && d.attempt === 1));
    const [position] = await db.query<{ serial: number }>('SELECT serial FROM webhook_position');
    assert.ok(position!.serial < serial, 'the position stays before the telegram');

    // The next round, in another process: the rest, none twice, and the position moves.
    const next: ClaimedDelivery[] = [];
    await queuerOn(db, false, next, errors).settled();
    assert.equal(errors.length, 1, 'the next round fails nothing');
    const all = await rows();
    assert.equal(all.length, SUBSCRIPTIONS);
    assert.equal(new Set(all.map((r) => r.subscription_id)).size, SUBSCRIPTIONS);
    assert.equal(all.filter((r) => r.attempts === 1).length, 128, 'the first slice is not queued again');
    assert.equal(next.length, 0);
    // Past the telegram and its JSON conversion (stored after it), which no subscription takes.
    const [moved] = await db.query<{ serial: number; newest: number }>(
      'SELECT serial, (SELECT max(serial) FROM telegrams) AS newest FROM webhook_position',
    );
    assert.equal(moved!.serial, moved!.newest);
    assert.ok(moved!.serial >= serial);
  }));

test(
  'a subscription created while a telegram is queued gets it when it was committed after the subscription began',
  { skip: testDatabaseUrl ? false : 'needs transactions at once: PostgreSQL (NAMAZU_TEST_DATABASE_URL)' },
  () =>
    withDatabase(async ({ db, bus, box, hold }) => {
      const accountId = await eewAccount(db, 'position@example.test');
      const first = await subscribeOne(db, box, accountId, 'http://127.0.0.1:9/first');
      const errors: unknown[] = [];
      const queuer = queuerOn(db, false, [], errors);
      await queuer.settled();
      // Another transaction holds the position's row: the creation waits behind it, and the telegram
      // commits while the creation is under way; the queuer's round comes meanwhile.
      const held = hold((q) => q.query('SELECT serial FROM webhook_position FOR UPDATE'));
      await held.started;
      const created = subscribeOne(db, box, accountId, 'http://127.0.0.2:9/second');
      await lockWaiters(db, 1);
      const stored = await ingestTelegram({ db, bus }, EEW, { receivedTime: Date.now() });
      assert.ok(stored.ok);
      const serial = stored.stored.serial;
      const settled = queuer.settled();
      await sleep(100);
      held.release();
      await held.done;
      const second = await created;
      await settled;
      await queuer.settled();
      assert.deepEqual(errors, []);

      const [sub] = await db.query<{ from_serial: number }>(
        'SELECT from_serial FROM webhook_subscriptions WHERE id = $1',
        [second],
      );
      const queued = async (id: number) =>
        (
          await db.query('SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1 AND serial = $2', [
            id,
            serial,
          ])
        ).length;
      assert.equal(await queued(first), 1);
      // Owed exactly when the telegram is newer than the subscription's start.
      assert.equal(await queued(second), serial > sub!.from_serial ? 1 : 0);
      const [position] = await db.query<{ serial: number }>('SELECT serial FROM webhook_position');
      assert.ok(position!.serial >= serial);
    }),
);

test('a disabled account (its backlog failed) or an ended contract stops the queueing at once; a contract begun again resumes it', () =>
  withDatabase(async ({ db, bus, box }) => {
    const kept = await subscribeOne(
      db,
      box,
      await eewAccount(db, 'kept@example.test'),
      'http://127.0.0.1:9/kept',
    );
    const contractedId = await eewAccount(db, 'contracted@example.test');
    const contracted = await subscribeOne(db, box, contractedId, 'http://127.0.0.2:9/contracted');
    const disabledId = await eewAccount(db, 'disabled@example.test');
    const disabled = await subscribeOne(db, box, disabledId, 'http://127.0.0.3:9/disabled');
    const errors: unknown[] = [];
    // One queuer throughout: it has read the subscriptions before the changes, and hears of none.
    const queuer = queuerOn(db, false, [], errors);
    // Three reports of one early warning: each a telegram of its own.
    const reports = [
      '77_01_01_240613_VXSE45.xml',
      '77_01_02_240613_VXSE45.xml',
      '77_01_03_240613_VXSE45.xml',
    ];
    const queuedTo = async () => {
      const xml = readFileSync(fixture('official', reports.shift()!));
      const stored = await ingestTelegram({ db, bus }, xml, { receivedTime: Date.now() });
      assert.ok(stored.ok);
      await queuer.settled();
      const rows = await db.query<{ subscription_id: number }>(
        'SELECT subscription_id FROM webhook_deliveries WHERE serial = $1 ORDER BY subscription_id',
        [stored.stored.serial],
      );
      return rows.map((r) => r.subscription_id);
    };
    assert.deepEqual(await queuedTo(), [kept, contracted, disabled]);

    const states = async (id: number) =>
      (
        await db.query<{ state: string; last_error: string | null }>(
          'SELECT state, last_error FROM webhook_deliveries WHERE subscription_id = $1',
          [id],
        )
      ).map((r) => `${r.state} ${r.last_error}`);
    assert.deepEqual(await states(disabled), ['pending null']);
    assert.ok(await disableAccount(db, disabledId));
    assert.deepEqual(await states(disabled), ['failed account disabled'], 'its backlog is not sent');
    for (const classification of ['eew.forecast', 'eew.warning'])
      await removeContract(db, contractedId, classification);
    assert.deepEqual(await queuedTo(), [kept]);

    await addContract(db, contractedId, 'eew.forecast');
    await addContract(db, contractedId, 'eew.warning');
    assert.deepEqual(await queuedTo(), [kept, contracted]);
    assert.deepEqual(errors, []);
  }));

const PG_ONLY = {
  skip: testDatabaseUrl ? false : 'needs transactions at once: PostgreSQL (NAMAZU_TEST_DATABASE_URL)',
};

type Hold = (
  ...args: Parameters<typeof heldTransaction> extends [Db, ...infer R] ? R : never
) => ReturnType<typeof heldTransaction>;

/**
 * A fresh database, its pepper's secret box and a bus; `hold` starts a heldTransaction that is
 * released at the end whatever happens.
 */
async function withDatabase(
  run: (ctx: {
    db: Db;
    bus: ReturnType<typeof createMemoryBus>;
    box: SecretBox;
    hold: Hold;
  }) => Promise<void>,
) {
  const database = await createTestDatabase();
  const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 8 });
  const bus = createMemoryBus();
  const releases: (() => void)[] = [];
  const hold: Hold = (...args) => {
    const held = heldTransaction(db, ...args);
    releases.push(held.release);
    return held;
  };
  try {
    const box = new SecretBox(
      await loadPepper(db, 'slices-secret-0123456789abcdef0123'),
      WEBHOOK_SECRET_PURPOSE,
    );
    await run({ db, bus, box, hold });
  } finally {
    for (const release of releases) release();
    await bus.close();
    await db.close();
    await database.drop();
  }
}

/** One account subscribed to early warnings at `count` receivers, and the EEW stored. */
function withSubscriptions(
  count: number,
  run: (ctx: {
    db: Db;
    box: SecretBox;
    accountId: number;
    subs: number[];
    serial: number;
    hold: Hold;
  }) => Promise<void>,
) {
  return withDatabase(async ({ db, bus, box, hold }) => {
    const accountId = await eewAccount(db, 'changes@example.test');
    const subs: number[] = [];
    for (let i = 0; i < count; i++)
      subs.push(await subscribeOne(db, box, accountId, `http://127.0.0.${i + 1}:9/hook`));
    const stored = await ingestTelegram({ db, bus }, EEW, { receivedTime: Date.now() });
    assert.ok(stored.ok);
    await run({ db, box, accountId, subs, serial: stored.stored.serial, hold });
  });
}

test(
  'an account disabled while a slice of the queue is written waits for it and fails its deliveries',
  PG_ONLY,
  () =>
    withSubscriptions(1, async ({ db, accountId, subs, serial, hold }) => {
      // The slice: the queuer's lock, and a delivery inserted under it, not yet committed.
      const slice = hold(async (q) => {
        await q.query('SELECT pg_advisory_xact_lock($1)', [QUEUE_LOCK_KEY]);
        await q.query(
          "INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority) VALUES ($1, $2, 'msg_slice', 0)",
          [subs[0]!, serial],
        );
      });
      await slice.started;
      const disabling = disableAccount(db, accountId);
      await lockWaiters(db, 1);
      slice.release();
      await slice.done;
      assert.ok(await disabling);
      const rows = await db.query<{ state: string; last_error: string }>(
        'SELECT state, last_error FROM webhook_deliveries WHERE subscription_id = $1',
        [subs[0]!],
      );
      assert.deepEqual(rows, [{ state: 'failed', last_error: 'account disabled' }]);
    }),
);

test(
  'a subscription deleted while a round queues leaves the round no error, and the others their deliveries',
  PG_ONLY,
  () =>
    withSubscriptions(2, async ({ db, accountId, subs, serial, hold }) => {
      const [kept, deleted] = subs as [number, number];
      const errors: unknown[] = [];
      const queuer = queuerOn(db, false, [], errors);
      await queuer.settled();
      // An attempt of the deleted one is being recorded: its delivery row is locked, and the deletion waits.
      const recording = hold((q) =>
        q.query('SELECT id FROM webhook_deliveries WHERE subscription_id = $1 FOR UPDATE', [deleted]),
      );
      await recording.started;
      const deleting = deleteSubscription(db, accountId, deleted);
      await lockWaiters(db, 1);
      const next = await ingestTelegram(
        { db, bus: createMemoryBus() },
        readFileSync(fixture('official', '77_01_02_240613_VXSE45.xml')),
        {
          receivedTime: Date.now(),
        },
      );
      assert.ok(next.ok);
      const settled = queuer.settled();
      await sleep(200);
      recording.release();
      await recording.done;
      assert.equal(await deleting, true);
      await settled;
      await queuer.settled();
      assert.deepEqual(errors, []);
      const rows = await db.query<{ subscription_id: number; serial: number }>(
        'SELECT subscription_id, serial FROM webhook_deliveries ORDER BY serial, subscription_id',
      );
      assert.deepEqual(rows, [
        { subscription_id: kept, serial },
        { subscription_id: kept, serial: next.stored.serial },
      ]);
    }),
);

test(
  'a subscription deleted while a failure that disables it is recorded is deleted, whichever the database stops',
  PG_ONLY,
  () =>
    withSubscriptions(1, async ({ db, accountId, subs, serial, hold }) => {
      const [sub] = subs as [number];
      await db.query(
        "INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority) VALUES ($1, $2, 'msg_d', 0)",
        [sub, serial],
      );
      // As recordFailure: the delivery, then the subscription (its streak past five days), and then,
      // disabling it, the queuer's lock, which the deletion holds while it waits for the delivery.
      const recording = hold(
        async (q) => {
          await q.query("UPDATE webhook_deliveries SET last_error = 'HTTP 503' WHERE subscription_id = $1", [
            sub,
          ]);
          await q.query("UPDATE webhook_subscriptions SET state = 'disabled' WHERE id = $1", [sub]);
        },
        (q) => q.query('SELECT move_webhook_subscriptions_version()'),
      );
      await recording.started;
      const deleting = deleteSubscription(db, accountId, sub);
      await lockWaiters(db, 1);
      recording.release();
      // A deadlock: the database stops one of them after its deadlock_timeout.
      await recording.done.catch((err: { code?: string }) => assert.equal(err.code, '40P01'));
      assert.equal(await deleting, true);
      const left = await db.query('SELECT id FROM webhook_subscriptions WHERE id = $1', [sub]);
      assert.deepEqual(left, []);
    }),
);

test(
  'a secret rotated while a failure that disables the subscription is recorded is rotated, whichever the database stops',
  PG_ONLY,
  () =>
    withSubscriptions(1, async ({ db, box, accountId, subs, serial, hold }) => {
      const [sub] = subs as [number];
      await db.query(
        "INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority) VALUES ($1, $2, 'msg_s', 0)",
        [sub, serial],
      );
      // As recordFailure, the subscription's row and then the queuer's lock, which the rotation takes
      // first and holds while it waits for the row.
      const recording = hold(
        (q) => q.query("UPDATE webhook_subscriptions SET state = 'disabled' WHERE id = $1", [sub]),
        (q) => q.query('SELECT move_webhook_subscriptions_version()'),
      );
      await recording.started;
      const rotating = rotateSecret(db, box, accountId, sub, 0);
      await lockWaiters(db, 1);
      recording.release();
      // A deadlock: the database stops one of them after its deadlock_timeout.
      await recording.done.catch((err: { code?: string }) => assert.equal(err.code, '40P01'));
      const rotated = await rotating;
      assert.ok(rotated.ok);
      const [row] = await db.query<{ secret_from: Date }>(
        'SELECT secret_from FROM webhook_subscriptions WHERE id = $1',
        [sub],
      );
      assert.equal(row!.secret_from.getTime(), rotated.subscription.secretFrom.getTime());
    }),
);

test('a delivery redelivered while the retention prunes it is kept', PG_ONLY, () =>
  withSubscriptions(1, async ({ db, subs, serial, hold }) => {
    const [old] = await db.query<{ id: number }>(
      `INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority, state, created_at)
       VALUES ($1, $2, 'msg_old', 1, 'failed', now() - interval '40 days') RETURNING id`,
      [subs[0]!, serial],
    );
    // Redelivered by a transaction that holds the row while the prune has picked it.
    const redelivering = hold(
      (q) => q.query('SELECT id FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [old!.id]),
      async (q) => assert.ok(await redeliver(q, subs[0]!, old!.id)),
    );
    await redelivering.started;
    const pruning = pruneEnded(db, 30 * 86_400_000, 100);
    await lockWaiters(db, 1);
    redelivering.release();
    await redelivering.done;
    assert.equal(await pruning, 0);
    const rows = await db.query<{ state: string }>('SELECT state FROM webhook_deliveries WHERE id = $1', [
      old!.id,
    ]);
    assert.deepEqual(rows, [{ state: 'pending' }]);
  }),
);

test('an attempt whose delivery was redelivered meanwhile records nothing on the redelivery', () =>
  withSubscriptions(1, async ({ db, subs, serial }) => {
    await db.query(
      "INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority) VALUES ($1, $2, 'msg_r', 1)",
      [subs[0]!, serial],
    );
    const [claimed] = await claimDue(db, 10, 60_000, []);
    assert.equal(claimed!.attempt, 1);
    // While attempt 1 is under way, the delivery fails and is redelivered by hand: an attempt of its own.
    await db.query("UPDATE webhook_deliveries SET state = 'failed' WHERE id = $1", [claimed!.id]);
    assert.ok(await redeliver(db, subs[0]!, claimed!.id));
    const failed = { ok: false, status: 503, error: 'HTTP 503', durationMs: 5, retryAfterMs: null };
    const policy = { baseMs: 60_000, capMs: 3_600_000, windowMs: 86_400_000, disableAfterMs: 5 * 86_400_000 };
    assert.equal(await recordFailure(db, claimed!, failed, policy), 'stale');
    const ok = { ok: true, status: 200, error: null, durationMs: 5, retryAfterMs: null };
    assert.deepEqual(await recordDelivered(db, [{ d: claimed!, outcome: ok }]), new Set());
    const [row] = await db.query<{ state: string; last_status: number | null; due: boolean }>(
      'SELECT state, last_status, next_at <= now() AS due FROM webhook_deliveries WHERE id = $1',
      [claimed!.id],
    );
    assert.deepEqual(row, { state: 'pending', last_status: null, due: true });
  }));

test('an attempt that succeeds as its subscription is disabled by its streak leaves the streak that disabled it', () =>
  withSubscriptions(1, async ({ db, subs, serial }) => {
    await db.query(
      "INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority) VALUES ($1, $2, 'msg_s', 1)",
      [subs[0]!, serial],
    );
    const [claimed] = await claimDue(db, 10, 60_000, []);
    // While it is under way, the failures of the days before disable the subscription.
    await db.query(
      `UPDATE webhook_subscriptions SET state = 'disabled', failing_since = '2026-11-20T00:00:00Z',
         disabled_reason = 'every delivery failed since 2026-11-20T00:00:00Z' WHERE id = $1`,
      [subs[0]!],
    );
    const ok = { ok: true, status: 200, error: null, durationMs: 5, retryAfterMs: null };
    assert.deepEqual(await recordDelivered(db, [{ d: claimed!, outcome: ok }]), new Set([claimed!.id]));
    const [row] = await db.query<{ state: string; failing_since: Date | null }>(
      'SELECT state, failing_since FROM webhook_subscriptions WHERE id = $1',
      [subs[0]!],
    );
    // Its state says since when it failed (docs/webhooks.md), and enabling it again starts a new streak.
    assert.deepEqual(
      [row!.state, row!.failing_since?.toISOString()],
      ['disabled', '2026-11-20T00:00:00.000Z'],
    );
  }));

test('five days of failures disable a subscription; a failure after a quiet day starts a new streak', () =>
  withSubscriptions(2, async ({ db, subs, serial }) => {
    const [steady, quiet] = subs as [number, number];
    // Both streaks began days ago: one failed an hour ago too, the other last failed a week ago.
    const streak =
      'UPDATE webhook_subscriptions SET failing_since = now() - $2::interval, last_failed_at = now() - $3::interval WHERE id = $1';
    await db.query(streak, [steady, '6 days', '1 hour']);
    await db.query(streak, [quiet, '9 days', '8 days']);
    for (const id of subs)
      await db.query(
        'INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority) VALUES ($1, $2, $3, 1)',
        [id, serial, `msg_${id}`],
      );
    const failed = { ok: false, status: 503, error: 'HTTP 503', durationMs: 5, retryAfterMs: null };
    const policy = { baseMs: 60_000, capMs: 3_600_000, windowMs: 86_400_000, disableAfterMs: 5 * 86_400_000 };
    for (const claimed of await claimDue(db, 10, 60_000, []))
      await recordFailure(db, claimed, failed, policy);
    const rows = await db.query<{ id: number; state: string; reason: string | null; fresh: boolean }>(
      `SELECT s.id, s.state, s.disabled_reason AS reason, s.failing_since > now() - interval '1 minute' AS fresh
       FROM webhook_subscriptions s ORDER BY s.id`,
    );
    assert.equal(rows.length, 2);
    assert.equal(rows[0]!.state, 'disabled');
    assert.match(rows[0]!.reason!, /^every delivery failed since \d{4}-\d\d-\d\dT/);
    assert.deepEqual(rows[1], { id: quiet, state: 'active', reason: null, fresh: true });
    const states = await db.query<{ subscription_id: number; state: string }>(
      'SELECT subscription_id, state FROM webhook_deliveries ORDER BY subscription_id',
    );
    assert.deepEqual(states, [
      { subscription_id: steady, state: 'failed' },
      { subscription_id: quiet, state: 'pending' },
    ]);
  }));
