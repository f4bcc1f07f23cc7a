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
import { createMemoryBus } from '../../src/bus/memory.ts';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { SecretBox } from '../../src/security/sealed.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { loadTelegramsAfter } from '../../src/telegrams/store.ts';
import type { ClaimedDelivery } from '../../src/webhooks/deliveries.ts';
import { Queuer } from '../../src/webhooks/queuer.ts';
import { WEBHOOK_SECRET_PURPOSE } from '../../src/webhooks/service.ts';
import { createSubscription } from '../../src/webhooks/subscriptions.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';

const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));
/** More than the first slice (128): the telegram's rows take two transactions. */
const SUBSCRIPTIONS = 140;

/** Subscribes the account to early warnings at `url`; returns the subscription's id. */
async function subscribeOne(db: Db, box: SecretBox, accountId: number, url: string): Promise<number> {
  const spec = {
    url,
    classifications: ['eew.forecast', 'eew.warning'],
    types: null,
    test: 'no' as const,
    formatMode: 'raw' as const,
    areas: null,
    minIntensity: null,
    format: 'namazu' as const,
    lang: 'ja' as const,
    token: null,
  };
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

test('a queuer that dies between slices leaves its first slice queued; the next round queues the rest once', async () => {
  const database = await createTestDatabase();
  const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 4 });
  const bus = createMemoryBus();
  try {
    const box = new SecretBox(
      await loadPepper(db, 'slices-secret-0123456789abcdef0123'),
      WEBHOOK_SECRET_PURPOSE,
    );
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
  } finally {
    await bus.close();
    await db.close();
    await database.drop();
  }
});

test(
  'a subscription created while a telegram is queued gets it when it was committed after the subscription began',
  { skip: testDatabaseUrl ? false : 'needs transactions at once: PostgreSQL (NAMAZU_TEST_DATABASE_URL)' },
  async () => {
    const database = await createTestDatabase();
    const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 8 });
    const bus = createMemoryBus();
    let release = () => {};
    try {
      const box = new SecretBox(
        await loadPepper(db, 'slices-secret-0123456789abcdef0123'),
        WEBHOOK_SECRET_PURPOSE,
      );
      const accountId = await eewAccount(db, 'position@example.test');
      const first = await subscribeOne(db, box, accountId, 'http://127.0.0.1:9/first');
      const errors: unknown[] = [];
      const queuer = queuerOn(db, false, [], errors);
      await queuer.settled();
      const waiting = async (n: number) => {
        for (;;) {
          const [row] = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          if (row!.n >= n) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };

      // Another transaction holds the position's row: the creation and the queuer's last slice wait
      // behind it, and the telegram commits while the creation is under way.
      const held = db.tx(async (q) => {
        await q.query('SELECT serial FROM webhook_position FOR UPDATE');
        await new Promise<void>((resolve) => (release = resolve));
      });
      await waiting(0);
      const created = subscribeOne(db, box, accountId, 'http://127.0.0.2:9/second');
      await waiting(1);
      const stored = await ingestTelegram({ db, bus }, EEW, { receivedTime: Date.now() });
      assert.ok(stored.ok);
      const serial = stored.stored.serial;
      const settled = queuer.settled();
      await waiting(2);
      release();
      await held;
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
    } finally {
      release();
      await bus.close();
      await db.close();
      await database.drop();
    }
  },
);

test('a disabled account (its backlog failed) or an ended contract stops the queueing at once; a contract begun again resumes it', async () => {
  const database = await createTestDatabase();
  const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 4 });
  const bus = createMemoryBus();
  try {
    const box = new SecretBox(
      await loadPepper(db, 'slices-secret-0123456789abcdef0123'),
      WEBHOOK_SECRET_PURPOSE,
    );
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
  } finally {
    await bus.close();
    await db.close();
    await database.drop();
  }
});
