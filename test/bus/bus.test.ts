import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPostgresBus } from '../../src/bus/postgres.ts';
import { createRedisBus } from '../../src/bus/redis.ts';
import type { Bus } from '../../src/bus/types.ts';
import { waitFor } from '../support/wait.ts';

const pgUrl = process.env.NAMAZU_TEST_DATABASE_URL || null;
const redisUrl = process.env.NAMAZU_TEST_REDIS_URL || null;

function collector(count: number) {
  const got: string[] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  return {
    got,
    all,
    handler: (p: string) => {
      got.push(p);
      if (got.length === count) done();
    },
  };
}

async function exercise(open: () => Promise<Bus>) {
  const a = await open();
  const b = await open();
  try {
    const n = 200;
    const onA = collector(n);
    const onB = collector(n);
    const offA = await a.subscribe('namazu_test_bus', onA.handler);
    await b.subscribe('namazu_test_bus', onB.handler);
    const sent = Array.from({ length: n }, (_, i) => JSON.stringify({ serial: i + 1 }));
    for (const p of sent) await a.publish('namazu_test_bus', p);
    await Promise.all([onA.all, onB.all]);
    assert.deepEqual(onA.got, sent, 'the publisher hears itself, in order');
    assert.deepEqual(onB.got, sent, 'another process hears every message, in order');

    await offA();
    // A second handler on the same bus, subscribed after the first: a bus delivers each message to
    // a channel's handlers in the order they subscribed, so once the marker reaches this one, the
    // unsubscribed handler would have had it already.
    const later = collector(1);
    await a.subscribe('namazu_test_bus', later.handler);
    await b.publish('namazu_test_bus', 'marker');
    await later.all;
    assert.deepEqual(later.got, ['marker']);
    assert.equal(onA.got.length, n, 'no delivery after unsubscribing');
  } finally {
    await a.close();
    await b.close();
  }
}

test('PostgreSQL LISTEN/NOTIFY bus', { skip: pgUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set' }, () =>
  exercise(() => createPostgresBus(pgUrl!)),
);

test('Redis pub/sub bus', { skip: redisUrl ? false : 'NAMAZU_TEST_REDIS_URL is not set' }, () =>
  exercise(() => createRedisBus(redisUrl!)),
);

test(
  'Redis: installations on different database numbers do not hear each other',
  { skip: redisUrl ? false : 'NAMAZU_TEST_REDIS_URL is not set' },
  async () => {
    const base = redisUrl!.replace(/\/\d*$/, '');
    const one = await createRedisBus(`${base}/1`);
    const two = await createRedisBus(`${base}/2`);
    const alsoOne = await createRedisBus(`${base}/1`);
    try {
      const onTwo = collector(1);
      const onOne = collector(2);
      await two.subscribe('namazu_test_iso', onTwo.handler);
      await alsoOne.subscribe('namazu_test_iso', onOne.handler);
      await one.publish('namazu_test_iso', 'for one');
      await two.publish('namazu_test_iso', 'for two');
      await one.publish('namazu_test_iso', 'for one again');
      await Promise.all([onOne.all, onTwo.all]);
      assert.deepEqual(onOne.got, ['for one', 'for one again']);
      assert.deepEqual(onTwo.got, ['for two']);
    } finally {
      await Promise.all([one.close(), two.close(), alsoOne.close()]);
    }
  },
);

test(
  'PostgreSQL: a listener whose connection is killed reconnects and listens again',
  { skip: pgUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set' },
  async () => {
    const pg = (await import('pg')).default;
    const errors: unknown[] = [];
    const bus = await createPostgresBus(pgUrl!, (err) => errors.push(err));
    const admin = new pg.Client({ connectionString: pgUrl! });
    await admin.connect();
    try {
      const got: string[] = [];
      await bus.subscribe('namazu_test_reconnect', (p) => got.push(p));
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE query = 'LISTEN "namazu_test_reconnect"' AND pid <> pg_backend_pid()`,
      );
      assert.equal(killed.rowCount, 1);
      let sent = 0;
      await waitFor(
        async () => {
          if (got.length > 0) return true;
          await bus.publish('namazu_test_reconnect', `after ${sent++}`);
          return false;
        },
        { timeout: 10_000, interval: 100, message: 'the listener to hear again' },
      );
      assert.ok(got.length > 0, 'heard again after reconnecting');
      assert.ok(errors.length > 0, 'the lost connection was reported');
    } finally {
      await admin.end();
      await bus.close();
    }
  },
);
