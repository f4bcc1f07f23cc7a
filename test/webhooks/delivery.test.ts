// Webhook delivery end to end: a real server (PGlite, or PostgreSQL with NAMAZU_TEST_DATABASE_URL),
// real HTTP receivers on loopback, telegrams ingested through the real pipeline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ingestFixtures, getJson } from '../support/data-api.ts';
import { fixtureIndex, type FixtureEntry } from '../support/fixtures.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { startReceiver } from './receiver.ts';
import { CONTRACTS, SCOPES } from './worker-support.ts';

const normal = (e: FixtureEntry) => e.status === '通常' && e.infoType === '発表';
const earthquakes = () =>
  fixtureIndex().filter((e) => e.classification === 'telegram.earthquake' && normal(e));
const eews = () => fixtureIndex().filter((e) => e.classification.startsWith('eew.') && normal(e));

async function setUp(config: Record<string, unknown> = {}, database?: TestDatabase) {
  const server = await startTestServer({
    listen: false,
    database,
    config: { webhookAllowPrivate: true, webhookRetryBaseMs: 50, webhookTimeoutMs: 2000, ...config },
  });
  const { account } = await server.createAccount({ contracts: CONTRACTS });
  const key = await server.createApiKey(account.id, SCOPES);
  const headers = {
    authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    'content-type': 'application/json',
  };
  const create = (body: object) =>
    getJson(server, '/v2/webhook', { method: 'POST', headers, body: JSON.stringify(body) });
  return { server, headers, create };
}

async function deliveriesOf(server: TestServer, headers: Record<string, string>, id: number) {
  return (await getJson(server, `/v2/webhook/${id}`, { headers })).body.deliveries as {
    id: number;
    state: string;
    attempts: number;
    status: number | null;
    error: string | null;
    webhookId: string;
  }[];
}

test('a telegram reaches a subscription once, signed as Standard Webhooks verify it, as the data message', async () => {
  const receiver = await startReceiver();
  const { server, create } = await setUp();
  try {
    const created = await create({ url: receiver.url, classifications: ['telegram.earthquake'] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const [entry] = earthquakes();
    await ingestFixtures(server, [entry!]);
    const [got] = await waitFor(() => (receiver.received.length > 0 ? receiver.received : null));
    const verified = new Webhook(created.body.secret).verify(got!.body, got!.headers) as Record<
      string,
      unknown
    >;
    assert.equal(verified.type, 'data');
    assert.equal(verified.classification, 'telegram.earthquake');
    assert.equal((verified.head as { type: string }).type, entry!.type);
    assert.equal(got!.headers['content-type'], 'application/json');
    assert.match(got!.headers['webhook-id']!, /^msg_/);
    // Another secret does not verify it.
    assert.throws(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got!.body, got!.headers),
    );
    await server.ctx.db.query('SELECT 1');
    await waitFor(
      async () =>
        (await server.ctx.db.query(`SELECT 1 FROM webhook_deliveries WHERE state = 'delivered'`)).length ===
        1,
    );
    assert.equal(receiver.received.length, 1);
  } finally {
    await server.close();
    await receiver.close();
  }
});

test('a retry keeps its webhook-id; a receiver down then up gets every delivery, none twice', async () => {
  const receiver = await startReceiver({ status: 503, headers: { 'retry-after': '0' } });
  const { server, create, headers } = await setUp();
  try {
    const created = await create({ url: receiver.url, classifications: ['telegram.earthquake'] });
    const entries = earthquakes().slice(0, 5);
    await ingestFixtures(server, entries);
    // Down: every telegram is attempted (and refused) at least twice.
    await waitFor(
      () =>
        new Set(receiver.received.map((r) => r.headers['webhook-id'])).size === 5 &&
        receiver.received.length >= 10,
      {
        timeout: 15_000,
        message: 'retries while the receiver is down',
      },
    );
    receiver.answer({ status: 204 });
    await waitFor(() => receiver.accepted.length >= 5, {
      timeout: 15_000,
      message: 'every delivery once up',
    });
    const ids = receiver.accepted.map((r) => r.headers['webhook-id']);
    assert.equal(new Set(ids).size, 5, 'no delivery accepted twice');
    const refusedIds = new Set(
      receiver.received.filter((r) => !receiver.accepted.includes(r)).map((r) => r.headers['webhook-id']),
    );
    for (const id of ids)
      assert.ok(refusedIds.has(id), 'the accepted attempt has the id of the refused ones');
    const deliveries = await waitFor(async () => {
      const ds = await deliveriesOf(server, headers, created.body.id);
      return ds.every((d) => d.state === 'delivered') ? ds : null;
    });
    assert.ok(deliveries.every((d) => d.attempts >= 2 && d.status === 204));
    // Nothing more arrives after the last delivery was recorded.
    assert.equal(receiver.accepted.length, 5);
  } finally {
    await server.close();
    await receiver.close();
  }
});

test('a receiver back after a long failing streak gets its backlog at once; a delivery it refused with a 4xx keeps its backoff', async () => {
  const receiver = await startReceiver({ status: 503 });
  // Backoff of at least a minute after the first failure: nothing is retried within the test on its own.
  const { server, create, headers } = await setUp({ webhookRetryBaseMs: 600_000 });
  try {
    const created = await create({ url: receiver.url, classifications: ['telegram.earthquake'] });
    const [down, refused, fresh] = earthquakes().slice(0, 3);
    const attempted = (n: number) =>
      waitFor(
        async () => {
          const ds = await deliveriesOf(server, headers, created.body.id);
          return ds.length === n && ds.every((d) => d.status !== null) ? ds : null;
        },
        { timeout: 5000, message: `${n} deliveries attempted` },
      );
    await ingestFixtures(server, [down!]);
    await attempted(1);
    receiver.answer({ status: 400 });
    await ingestFixtures(server, [refused!]);
    const [refusedDelivery, downDelivery] = await attempted(2);
    assert.equal(downDelivery!.status, 503);
    assert.equal(refusedDelivery!.status, 400);
    // The streak began over a minute ago (the receiver was down, not refusing one delivery).
    await server.ctx.db.query(
      `UPDATE webhook_subscriptions SET failing_since = now() - interval '2 minutes' WHERE id = $1`,
      [created.body.id],
    );
    receiver.answer({ status: 204 });
    await ingestFixtures(server, [fresh!]);
    await waitFor(() => receiver.accepted.length === 2, {
      timeout: 5000,
      message: 'the fresh telegram and the backlog delivered',
    });
    const after = await waitFor(async () => {
      const ds = await deliveriesOf(server, headers, created.body.id);
      return ds.filter((d) => d.state === 'delivered').length === 2 ? ds : null;
    });
    const freshDelivery = after[0]!;
    assert.deepEqual(
      receiver.accepted.map((r) => r.headers['webhook-id']).sort(),
      [downDelivery!.webhookId, freshDelivery.webhookId].sort(),
    );
    const stillRefused = after.find((d) => d.id === refusedDelivery!.id)!;
    assert.equal(stillRefused.state, 'pending');
    assert.equal(stillRefused.attempts, 1, 'the refused delivery waits for its own backoff');
    assert.equal(
      receiver.received.filter((r) => r.headers['webhook-id'] === refusedDelivery!.webhookId).length,
      1,
    );
  } finally {
    await server.close();
    await receiver.close();
  }
});

test('a node with webhook delivery off queues and sends nothing but test events; a delivering node on the same database delivers what it left', async () => {
  const receiver = await startReceiver({ status: 204 });
  const database = await createTestDatabase();
  try {
    const { server: quiet, create, headers } = await setUp({ webhookDelivery: false }, database);
    let id: number;
    try {
      id = (await create({ url: receiver.url, classifications: ['telegram.earthquake'] })).body.id;
      const tested = await getJson(quiet, `/v2/webhook/${id}/test`, { method: 'POST', headers });
      assert.equal(tested.status, 200, JSON.stringify(tested.body));
      assert.equal(receiver.received.length, 1, 'the test event is sent by the node that was asked');
      await ingestFixtures(quiet, earthquakes().slice(0, 1));
      // Two periods of the queuer's healing timer and three of the workers' poll, had they run.
      await sleep(1500);
      assert.equal(receiver.received.length, 1);
      const queued = await quiet.ctx.db.query('SELECT 1 FROM webhook_deliveries WHERE serial IS NOT NULL');
      assert.equal(queued.length, 0);
    } finally {
      await quiet.close();
    }
    const delivering = await startTestServer({ database, config: { webhookAllowPrivate: true } });
    try {
      const [got] = await waitFor(() => (receiver.received.length === 2 ? [receiver.received[1]!] : null), {
        message: 'the telegram delivered by the delivering node',
      });
      assert.equal(got!.headers['webhook-id']!.split('_')[1], String(id));
    } finally {
      await delivering.close();
    }
  } finally {
    await database.drop();
    await receiver.close();
  }
});

test('a redirect is not followed; a body without end or without headers holds an attempt only up to its bounds', async () => {
  const elsewhere = await startReceiver();
  const redirecting = await startReceiver({ status: 307, headers: { location: elsewhere.url } });
  const endless = await startReceiver((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 120);
    const timer = setInterval(() => res.write(chunk), 1);
    res.on('close', () => clearInterval(timer));
  });
  const silent = await startReceiver(() => {
    // never answers
  });
  const { server, create, headers } = await setUp({ webhookTimeoutMs: 500, webhookRetryBaseMs: 60_000 });
  try {
    const ids: Record<string, number> = {};
    for (const [name, r] of Object.entries({ redirecting, endless, silent })) {
      ids[name] = (await create({ url: r.url, classifications: ['telegram.earthquake'] })).body.id;
    }
    const started = performance.now();
    await ingestFixtures(server, earthquakes().slice(0, 1));
    const first = async (name: string) =>
      waitFor(
        async () =>
          (await deliveriesOf(server, headers, ids[name]!)).find(
            (d) => d.attempts > 0 && (d.status !== null || d.error !== null),
          ),
        {
          timeout: 5000,
          message: `${name}'s attempt recorded`,
        },
      );
    const redirected = await first('redirecting');
    assert.equal(redirected.status, 307);
    assert.equal(redirected.error, 'redirect not followed');
    assert.equal(redirected.state, 'pending');
    const streamed = await first('endless');
    assert.equal(streamed.state, 'delivered');
    const hung = await first('silent');
    assert.equal(hung.error, 'timeout');
    assert.ok(performance.now() - started < 4000, 'bounded by the time limit');
    assert.equal(elsewhere.received.length, 0, 'the redirect target got nothing');
    // The endless body was dropped after a few KiB: the process did not read it on.
    const before = endless.received.length;
    assert.equal(before, 1);
  } finally {
    await server.close();
    for (const r of [elsewhere, redirecting, endless, silent]) await r.close();
  }
});

test('an early warning is not held behind a dead receiver backlog', async () => {
  const dead = await startReceiver(() => {
    // hangs every request until the attempt's time limit
  });
  const live = await startReceiver();
  const { server, create } = await setUp({ webhookTimeoutMs: 8000 });
  try {
    // The dead receiver subscribes to everything and gets a backlog; the live one to early warnings.
    await create({ url: dead.url, classifications: ['telegram.earthquake', 'eew.forecast', 'eew.warning'] });
    const liveUrl = live.url.replace('127.0.0.1', 'localhost');
    await create({ url: liveUrl, classifications: ['eew.forecast', 'eew.warning'] });
    await ingestFixtures(server, earthquakes().slice(0, 40));
    await waitFor(() => dead.received.length >= 32, {
      timeout: 5000,
      message: 'the dead receiver holding attempts',
    });
    const committed = performance.now();
    await ingestFixtures(server, eews().slice(0, 1));
    await waitFor(() => live.received.length === 1, {
      timeout: 4000,
      message: 'the early warning at the live receiver',
    });
    assert.ok(live.received[0]!.at - committed < 4000);
  } finally {
    await server.close();
    await dead.close();
    await live.close();
  }
});
