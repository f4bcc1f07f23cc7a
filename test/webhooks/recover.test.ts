// A receiver down for longer than the day of retries: its webhook's failed deliveries are listed by
// state, in pages, and queued again together by the time their telegrams were received (docs/webhooks.md
// "Deliveries"), each under its own webhook-id, once; only with the scopes, only one's own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  PRIORITY_EEW,
  backlog,
  claimDue,
  failedDeliveries,
  recoverFailed,
} from '../../src/webhooks/deliveries.ts';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { ingestVariant } from '../support/ingest-variant.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { madeSubscription } from '../support/webhook-spec.ts';
import { apiKey, ownedWebhook } from './owned-webhook.ts';
import { startReceiver } from './receiver.ts';
import { queueOne } from './worker-support.ts';

const QUAKE = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'));
const HOUR = 3_600_000;

/** The deliveries' state, as the table holds it, by serial. */
async function statesOf(server: TestServer, id: number): Promise<Map<number, string>> {
  const rows = await server.ctx.db.query<{ serial: number; state: string }>(
    'SELECT serial, state FROM webhook_deliveries WHERE subscription_id = $1 AND serial IS NOT NULL',
    [id],
  );
  return new Map(rows.map((r) => [Number(r.serial), r.state]));
}

test('failed deliveries are listed by state in pages, and those of a time range redelivered together, each once under its webhook-id', async () => {
  const receiver = await startReceiver({ status: 500 });
  const server = await startTestServer({
    listen: false,
    config: { webhookAllowPrivate: true, webhookRetryBaseMs: HOUR },
  });
  try {
    const { accountId, manage, id, secret } = await ownedWebhook(server, receiver.url, [
      'webhook.manage',
      'telegram.get.earthquake',
    ]);
    const list = await apiKey(server, accountId, ['webhook.list']);

    // Three telegrams whose first attempts fail; the next attempt is an hour away.
    const serials: number[] = [];
    for (let i = 0; i < 3; i++) serials.push(await ingestVariant(server, QUAKE));
    const [oldest, hoursAgo, newest] = serials as [number, number, number];
    await waitFor(() => receiver.received.length === 3, { message: 'three first attempts' });
    // A failed test event: never redelivered, by hand or together.
    const tested = await getJson(server, `/v2/webhook/${id}/test`, { method: 'POST', headers: manage });
    assert.equal(tested.body.delivery.delivered, false);
    // Received 3 days, 2 hours and 10 minutes ago, and retried for longer than the retry window: the
    // next attempt, at once, fails them for good (the worker's own path).
    await server.ctx.db.query(
      `UPDATE webhook_deliveries SET next_at = now(), retry_from = now() - interval '25 hours',
         created_at = now() - CASE serial WHEN $2 THEN interval '3 days' WHEN $3 THEN interval '2 hours'
           ELSE interval '10 minutes' END
       WHERE subscription_id = $1 AND serial IS NOT NULL`,
      [id, oldest, hoursAgo],
    );
    server.app.webhooks.wake();
    await waitFor(async () => [...(await statesOf(server, id)).values()].every((s) => s === 'failed'), {
      message: 'the three deliveries failed',
    });
    // What the console's webhook page counts apart: the telegrams' failures (the test event's aside),
    // and when the oldest was queued.
    const counted = await failedDeliveries(server.ctx.db, id);
    assert.equal(counted.count, 3);
    assert.ok(Math.abs(counted.oldest!.getTime() - (Date.now() - 72 * HOUR)) < HOUR, String(counted.oldest));

    // Listed by state, newest first, in pages whose token leads to the next.
    const deliveries = (query: string, headers = list) =>
      getJson(server, `/v2/webhook/${id}/deliveries${query}`, { headers });
    const failed = await deliveries('?state=failed');
    assert.equal(failed.status, 200, JSON.stringify(failed.body));
    assert.deepEqual(
      failed.body.items.map((d: { telegramId: string | null }) => d.telegramId === null),
      [true, false, false, false],
      'the test event, then the three telegrams, newest first',
    );
    assert.equal(failed.body.nextToken, undefined);
    // Each shows what the receiver answered: its status, and the start of its body.
    for (const d of failed.body.items) assert.deepEqual([d.status, d.response], [500, 'ok']);
    const first = await deliveries('?state=failed&limit=2');
    assert.equal(first.body.items.length, 2);
    const second = await deliveries(`?state=failed&limit=2&cursorToken=${first.body.nextToken}`);
    assert.equal(second.body.items.length, 2);
    assert.equal(second.body.nextToken, undefined);
    assert.deepEqual(
      [...first.body.items, ...second.body.items].map((d: { id: number }) => d.id),
      failed.body.items.map((d: { id: number }) => d.id),
    );
    assert.equal((await deliveries('?state=delivered')).body.items.length, 0);
    assert.equal((await deliveries('')).body.items.length, 4);
    const webhookIds = new Map<number, string>(
      failed.body.items
        .filter((d: { telegramId: string | null }) => d.telegramId !== null)
        .map((d: { id: number; webhookId: string }) => [d.id, d.webhookId]),
    );

    // Bad input: a 400 naming what is wrong, nothing changed.
    for (const [query, message] of [
      ['?state=lost', 'Unexpected data of search query `state`.'],
      ['?limit=0', 'Unexpected data of search query `limit`.'],
      ['?cursorToken=%%%', 'Unexpected data of search query `cursorToken`.'],
      [
        `?cursorToken=${Buffer.from('telegram.o.5').toString('base64url')}`,
        'Unexpected data of search query `cursorToken`.',
      ],
    ] as const) {
      const refused = await deliveries(query);
      assert.equal(refused.status, 400, query);
      assert.equal(refused.body.error.message, message, query);
    }
    const recover = (query: string, headers = manage, which: number | string = id) =>
      getJson(server, `/v2/webhook/${which}/recover${query}`, { method: 'POST', headers });
    const missing = await recover('');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error.message, /^The `datetime` query parameter is required/);
    for (const query of [
      '?datetime=yesterday',
      '?datetime=~',
      '?datetime=2026-11-30T00:00:00Z',
      '?datetime=a&datetime=b',
    ]) {
      const refused = await recover(query);
      assert.equal(refused.status, 400, query);
      assert.equal(refused.body.error.message, 'Unexpected data of search query `datetime`.', query);
    }
    assert.equal((await recover('?datetime=2020-01-01T00:00:00Z~', list)).status, 403);
    assert.equal((await deliveries('', manage)).status, 403, 'listing needs webhook.list');
    const other = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const stranger = await apiKey(server, other.account.id, ['webhook.manage', 'webhook.list']);
    assert.equal((await recover('?datetime=2020-01-01T00:00:00Z~', stranger)).status, 404);
    assert.equal((await deliveries('', stranger)).status, 404);
    assert.equal((await recover('?datetime=2020-01-01T00:00:00Z~', manage, 'x')).status, 404);
    assert.deepEqual(
      [...(await statesOf(server, id)).values()],
      ['failed', 'failed', 'failed'],
      'nothing queued by the refusals',
    );

    // The receiver is back: the last day's two failed deliveries are queued again and arrive once each.
    receiver.answer({ status: 204 });
    // Whole seconds, as the lists' `datetime` takes them.
    const since = `${new Date(Date.now() - 24 * HOUR).toISOString().slice(0, 19)}Z`;
    const recovered = await recover(`?datetime=${since}~`);
    assert.equal(recovered.status, 200, JSON.stringify(recovered.body));
    assert.equal(recovered.body.recovered, 2);
    assert.equal(recovered.body.from, since.replace('Z', '.000Z'));
    assert.equal(recovered.body.before, null);
    await waitFor(() => receiver.accepted.length === 2, { message: 'the two recovered deliveries' });
    const arrivedIds = receiver.accepted.map((r) => r.headers['webhook-id']);
    const expected = [...webhookIds.values()].filter((w) => w !== `msg_${id}_${oldest}`);
    assert.deepEqual([...arrivedIds].sort(), [...expected].sort(), 'under their own webhook-ids');
    for (const arrived of receiver.accepted)
      assert.ok(new Webhook(secret).verify(arrived.body, arrived.headers));
    await waitFor(async () => (await statesOf(server, id)).get(newest) === 'delivered', {
      message: 'recorded as delivered',
    });
    assert.equal((await statesOf(server, id)).get(oldest), 'failed', 'the older one is outside the range');
    const delivered = (await deliveries('?state=delivered')).body.items;
    assert.deepEqual(
      delivered.map((d: { status: number; response: string | null }) => [d.status, d.response]),
      [
        [204, null],
        [204, null],
      ],
      'a delivered one shows no refusal',
    );

    // Asked again, nothing more: those two are delivered. The range before a day ago holds the oldest.
    assert.equal((await recover(`?datetime=${since}~`)).body.recovered, 0);
    const older = await recover(`?datetime=~${since}`);
    assert.equal(older.body.recovered, 1);
    await waitFor(() => receiver.accepted.length === 3, { message: 'the oldest recovered' });
    assert.equal(receiver.accepted[2]!.headers['webhook-id'], `msg_${id}_${oldest}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.accepted.length, 3, 'none twice');
    // Their latency counts from their recovery, not from their first queueing a day and more ago.
    const latency = (await server.ctx.metrics.webhookLatency.get()).values;
    const count = latency.find((v) => v.metricName?.endsWith('_count'))?.value;
    const sum = latency.find((v) => v.metricName?.endsWith('_sum'))?.value;
    assert.equal(count, 3);
    assert.ok(sum! < 60, `latency ${sum} s in all`);
    assert.equal(new Set(receiver.accepted.map((r) => r.headers['webhook-id'])).size, 3);

    // A disabled webhook recovers nothing: it is enabled again first.
    await server.ctx.db.query(`UPDATE webhook_deliveries SET state = 'failed' WHERE subscription_id = $1`, [
      id,
    ]);
    await server.ctx.db.query(`UPDATE webhook_subscriptions SET state = 'disabled' WHERE id = $1`, [id]);
    const disabled = await recover('?datetime=2020-01-01T00:00:00Z~');
    assert.equal(disabled.status, 409);
    assert.equal(
      disabled.body.error.message,
      'The webhook is disabled: enable it again first (POST /v2/webhook/:id/enable).',
    );
    assert.ok([...(await statesOf(server, id)).values()].every((s) => s === 'failed'));
  } finally {
    await server.close();
    await receiver.close();
  }
});

/**
 * A server that delivers nothing itself (the queue is filled and claimed by the test, as a delivering
 * process would) and a subscription of a new account to a port nothing listens on.
 */
async function quietSubscription() {
  const server = await startTestServer({
    listen: false,
    config: { webhookAllowPrivate: true, webhookDelivery: false },
  });
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const made = await madeSubscription(server, account.id, 'http://127.0.0.1:9/hook');
  return { server, subscriptionId: made.subscription.id };
}

test('recovered early warnings, days late, do not take the lane of fresh ones', async () => {
  const { server, subscriptionId } = await quietSubscription();
  try {
    const late = await ingestVariant(server, QUAKE);
    const fresh = await ingestVariant(server, QUAKE);
    const lateId = await queueOne(server.ctx.db, subscriptionId, late, PRIORITY_EEW);
    await server.ctx.db.query(`UPDATE webhook_deliveries SET state = 'failed' WHERE id = $1`, [lateId]);
    assert.equal(await recoverFailed(server.ctx.db, subscriptionId, {}), 1);
    const freshId = await queueOne(server.ctx.db, subscriptionId, fresh, PRIORITY_EEW);
    // The early-warning lane (a process's last slots) takes the fresh one only; the recovered one
    // is claimed with the other deliveries.
    const lane = await claimDue(server.ctx.db, 10, 20_000, [], true);
    assert.deepEqual(
      lane.map((d) => d.id),
      [freshId],
    );
    const others = await claimDue(server.ctx.db, 10, 20_000, []);
    assert.deepEqual(
      others.map((d) => [d.id, d.messageId]),
      [[lateId, `msg_${subscriptionId}_${late}`]],
    );
  } finally {
    await server.close();
  }
});

test('a recovery larger than a batch queues every failed delivery in its range once, and nothing else', async () => {
  const { server, subscriptionId: id } = await quietSubscription();
  try {
    // 1,100 failed in the last day, 101 failed before it, 50 delivered in it (as a month of an
    // outage leaves them; their telegrams need not be stored for the queue).
    await server.ctx.db.query(
      `INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority, state, attempts, created_at)
       SELECT $1::int8, n, 'msg_' || $1::int8 || '_' || n, 1,
         CASE WHEN n > 1201 THEN 'delivered' ELSE 'failed' END, 5,
         now() - CASE WHEN n <= 101 THEN interval '2 days' ELSE interval '1 hour' END
       FROM generate_series(1, 1251) AS n`,
      [id],
    );
    const recovered = await recoverFailed(server.ctx.db, id, { from: new Date(Date.now() - 86_400_000) });
    assert.equal(recovered, 1100);
    const counts = await server.ctx.db.query<{ state: string; old: boolean; n: number }>(
      `SELECT state, serial <= 101 AS old, count(*)::int AS n FROM webhook_deliveries
       WHERE subscription_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [id],
    );
    assert.deepEqual(
      counts.map((c) => [c.state, c.old, c.n]),
      [
        ['delivered', false, 50],
        ['failed', true, 101],
        ['pending', false, 1100],
      ],
    );
    // Queued again now, they are no backlog of an hour: the alert on an old backlog does not fire.
    const waiting = await backlog(server.ctx.db);
    assert.equal(waiting.pending, 1100);
    assert.ok(waiting.oldestSeconds < 60, `${waiting.oldestSeconds} s`);
    // Asked again, the pending ones are not queued twice.
    assert.equal(await recoverFailed(server.ctx.db, id, {}), 101);
  } finally {
    await server.close();
  }
});
