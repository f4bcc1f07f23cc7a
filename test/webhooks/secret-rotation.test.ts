// A webhook's signing secret rotated by its owner (docs/webhooks.md "Rotating the secret"): the new
// secret shown once; the old one goes on signing beside it for the time asked (a day by default,
// none with 0), so that the receiver verifies every attempt meanwhile with either; then only the new
// one signs. Telegram deliveries and test events alike, verified with the `standardwebhooks` package.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { ingestVariant } from '../support/ingest-variant.ts';

import { waitFor } from '../support/wait.ts';
import { keyedWebhookServer } from './keyed-server.ts';
import type { Received } from './receiver.ts';

const QUAKE = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'));

/** Whether the secret verifies the request as received. */
function verifies(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body, r.headers);
    return true;
  } catch {
    return false;
  }
}

async function setUp() {
  const { receiver, server, headers, close } = await keyedWebhookServer({ status: 204 });
  const created = await getJson(server, '/v2/webhook', {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: receiver.url, classifications: ['telegram.earthquake'] }),
  });
  if (created.status !== 200) {
    await close();
    assert.fail(JSON.stringify(created.body));
  }
  const rotate = (query = '', id: number | string = created.body.id) =>
    getJson(server, `/v2/webhook/${id}/secret${query}`, { method: 'POST', headers });
  /** A telegram and a test event, as the receiver gets them. */
  const nextTwo = async (): Promise<Received[]> => {
    const from = receiver.received.length;
    await ingestVariant(server, QUAKE);
    await waitFor(() => receiver.received.length === from + 1, { message: 'the telegram delivered' });
    const tested = await getJson(server, `/v2/webhook/${created.body.id}/test`, { method: 'POST', headers });
    assert.equal(tested.body.delivery.delivered, true, JSON.stringify(tested.body));
    return receiver.received.slice(from, from + 2);
  };
  return {
    receiver,
    server,
    headers,
    id: created.body.id as number,
    first: created.body.secret as string,
    rotate,
    nextTwo,
  };
}

test('a rotated secret signs beside the new one for a day, or not at all with 0; the new one is shown once', async () => {
  const { receiver, server, headers, id, first, rotate, nextTwo } = await setUp();
  try {
    const rotated = await rotate();
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const second = rotated.body.secret as string;
    assert.match(second, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(second, first);
    const until = Date.parse(rotated.body.previousSecretUntil);
    assert.ok(Math.abs(until - Date.now() - 86_400_000) < 60_000, rotated.body.previousSecretUntil);
    const read = (await getJson(server, `/v2/webhook/${id}`, { headers })).body;
    assert.equal(read.secret, undefined, 'the secret is not shown again');
    assert.equal(read.previousSecretUntil, rotated.body.previousSecretUntil);
    assert.equal(read.secretFrom, rotated.body.secretFrom);

    // Both secrets verify every attempt of the day: a receiver moves to the new one when it likes.
    for (const r of await nextTwo()) {
      assert.ok(verifies(first, r), 'the old secret verifies');
      assert.ok(verifies(second, r), 'the new secret verifies');
      assert.equal(r.headers['webhook-signature']!.split(' ').length, 2);
    }

    // A rotation with no overlap: the last secret alone signs; the one before it is forgotten.
    const third = (await rotate('?previousValidSeconds=0')).body;
    assert.equal(third.previousSecretUntil, null);
    for (const r of await nextTwo()) {
      assert.ok(verifies(third.secret, r));
      assert.ok(!verifies(second, r) && !verifies(first, r), 'no older secret verifies');
      assert.equal(r.headers['webhook-signature']!.split(' ').length, 1);
    }

    // An overlap that ends: after it, the new secret alone signs.
    const fourth = (await rotate('?previousValidSeconds=1')).body;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    for (const r of await nextTwo()) {
      assert.ok(verifies(fourth.secret, r));
      assert.ok(!verifies(third.secret, r), 'the overlap is over');
    }
    assert.equal((await getJson(server, `/v2/webhook/${id}`, { headers })).body.previousSecretUntil, null);
    assert.equal(receiver.received.length, 6);
  } finally {
    await server.close();
    await receiver.close();
  }
});

test("a rotation with a bad overlap, of a webhook not one's own, or without webhook.manage changes nothing", async () => {
  const { receiver, server, headers, id, first, rotate, nextTwo } = await setUp();
  try {
    const bad = ['-1', '1.5', '604801', '', '99999999999', 'day'].map((v) => `?previousValidSeconds=${v}`);
    for (const query of [...bad, '?previousValidSeconds=1&previousValidSeconds=2']) {
      const res = await rotate(query);
      assert.equal(res.status, 400, query);
      assert.equal(
        res.body.error.message,
        'The `previousValidSeconds` is a whole number of seconds from 0 to 604800 (7 days).',
      );
    }
    const other = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const strangerKey = await server.createApiKey(other.account.id, ['webhook.manage']);
    const stranger = { authorization: `Basic ${Buffer.from(`${strangerKey}:`).toString('base64')}` };
    const notTheirs = await getJson(server, `/v2/webhook/${id}/secret`, {
      method: 'POST',
      headers: stranger,
    });
    assert.equal(notTheirs.status, 404);
    assert.equal(notTheirs.body.error.message, 'Webhook ID not found.');
    assert.equal((await rotate('', 'abc')).status, 404);
    assert.equal((await rotate('', 999_999)).status, 404);
    const [owner] = await server.ctx.db.query<{ account_id: number }>(
      'SELECT account_id FROM webhook_subscriptions WHERE id = $1',
      [id],
    );
    const listKey = await server.createApiKey(owner!.account_id, ['webhook.list']);
    const listOnly = { authorization: `Basic ${Buffer.from(`${listKey}:`).toString('base64')}` };
    const refused = await getJson(server, `/v2/webhook/${id}/secret`, { method: 'POST', headers: listOnly });
    assert.equal(refused.status, 403);

    // Nothing rotated: the secret given at creation alone signs.
    for (const r of await nextTwo()) {
      assert.ok(verifies(first, r));
      assert.equal(r.headers['webhook-signature']!.split(' ').length, 1);
    }
    assert.equal((await getJson(server, `/v2/webhook/${id}`, { headers })).body.previousSecretUntil, null);

    // The longest overlap is a week.
    const week = await rotate('?previousValidSeconds=604800');
    assert.equal(week.status, 200);
    const until = Date.parse(week.body.previousSecretUntil);
    assert.ok(Math.abs(until - Date.now() - 604_800_000) < 60_000, week.body.previousSecretUntil);
  } finally {
    await server.close();
    await receiver.close();
  }
});
