// A webhook's own request headers (docs/webhooks.md "Extra request headers"): given at creation or
// by a change, sent with every attempt and test event beside the delivery's own, stored sealed, and
// shown by name only. Bad input is refused naming `headers`, and changes nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { ingestVariant } from '../support/ingest-variant.ts';
import { waitFor } from '../support/wait.ts';
import { keyedWebhookServer } from './keyed-server.ts';

const QUAKE = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'));
const TOKEN = 'tk_0123456789abcdefghijklmnopqrs';

async function setUp() {
  const { receiver, server, headers, close } = await keyedWebhookServer({ status: 200 });
  const call = (path: string, method: string, body?: unknown) =>
    getJson(server, path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const create = (body: Record<string, unknown>) =>
    call('/v2/webhook', 'POST', { url: receiver.url, classifications: ['telegram.earthquake'], ...body });
  const count = async () =>
    (await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_subscriptions'))[0]!.n;
  return { server, receiver, call, create, count, close };
}

test('headers given at creation go with every delivery and test event, and are shown by name only', async () => {
  const { server, receiver, call, create, close } = await setUp();
  try {
    const created = await create({
      format: 'ntfy',
      headers: { Authorization: `Bearer ${TOKEN}`, Click: ' https://example.test/quake ' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(created.body.headerNames, ['Authorization', 'Click']);
    const id = created.body.id as number;
    const secret = created.body.secret as string;
    const listed = await call('/v2/webhook', 'GET');
    const one = await call(`/v2/webhook/${id}`, 'GET');
    assert.deepEqual(one.body.headerNames, ['Authorization', 'Click']);
    for (const answer of [created, listed, one])
      assert.doesNotMatch(JSON.stringify(answer.body), new RegExp(TOKEN), 'the value is never shown');
    const [row] = await server.ctx.db.query<{ headers_sealed: string; header_names: string[] }>(
      'SELECT headers_sealed, header_names FROM webhook_subscriptions WHERE id = $1',
      [id],
    );
    assert.doesNotMatch(row!.headers_sealed, new RegExp(TOKEN), 'sealed at rest');
    assert.deepEqual(row!.header_names, ['Authorization', 'Click']);

    await ingestVariant(server, QUAKE);
    await waitFor(() => receiver.received.length === 1, { message: 'the telegram delivered' });
    const tested = await call(`/v2/webhook/${id}/test`, 'POST');
    assert.equal(tested.body.delivery.delivered, true);
    assert.equal(receiver.received.length, 2);
    for (const arrived of receiver.received) {
      assert.equal(arrived.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(arrived.headers.click, 'https://example.test/quake', 'trimmed');
      assert.ok(arrived.headers.title, "the ntfy post's own headers stay");
      assert.equal(arrived.headers['content-type'], 'text/plain; charset=utf-8');
      // Signed as ever (the package's verify() parses the body as JSON: an ntfy body is text).
      const at = new Date(Number(arrived.headers['webhook-timestamp']) * 1000);
      const signature = new Webhook(secret).sign(arrived.headers['webhook-id']!, at, arrived.body);
      assert.equal(arrived.headers['webhook-signature'], signature);
    }
  } finally {
    await close();
  }
});

test('a change keeps the headers unless given others; null removes them', async () => {
  const { server, receiver, call, create, close } = await setUp();
  try {
    const created = await create({ headers: { 'X-Api-Key': 'first-key' } });
    const id = created.body.id as number;
    const delivered = async (n: number) => {
      await ingestVariant(server, QUAKE);
      await waitFor(() => receiver.received.length === n, { message: `delivery ${n}` });
      return receiver.received[n - 1]!.headers;
    };

    const kept = await call(`/v2/webhook/${id}`, 'PATCH', { lang: 'en' });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.deepEqual(kept.body.headerNames, ['X-Api-Key']);
    assert.equal((await delivered(1))['x-api-key'], 'first-key', 'kept through a change of another field');

    const replaced = await call(`/v2/webhook/${id}`, 'PATCH', { headers: { 'X-Other': 'second' } });
    assert.deepEqual(replaced.body.headerNames, ['X-Other']);
    const second = await delivered(2);
    assert.equal(second['x-other'], 'second');
    assert.equal(second['x-api-key'], undefined, 'the set is replaced whole');

    const removed = await call(`/v2/webhook/${id}`, 'PATCH', { headers: null });
    assert.deepEqual(removed.body.headerNames, []);
    assert.equal((await delivered(3))['x-other'], undefined);
    const [row] = await server.ctx.db.query<{ headers_sealed: string | null }>(
      'SELECT headers_sealed FROM webhook_subscriptions WHERE id = $1',
      [id],
    );
    assert.equal(row!.headers_sealed, null);
  } finally {
    await close();
  }
});

test('bad headers are refused naming the field, and nothing is created or changed', async () => {
  const { call, create, count, close } = await setUp();
  try {
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v']));
    const bad: [string, unknown][] = [
      ['too many', many],
      ['Content-Type', { 'Content-Type': 'text/plain' }],
      ['Host', { host: 'example.test' }],
      ['User-Agent', { 'User-Agent': 'mine' }],
      ['a signature', { 'Webhook-Signature': 'v1,forged' }],
      ['Connection', { Connection: 'close' }],
      ['a line break in a value', { 'X-A': 'a\r\nX-Injected: 1' }],
      ['a non-ASCII value', { 'X-A': '東京' }],
      ['an empty value', { 'X-A': '  ' }],
      ['a value too long', { 'X-A': 'v'.repeat(1025) }],
      ['a name with a space', { 'Bad Name': 'v' }],
      ['a name too long', { [`X-${'n'.repeat(63)}`]: 'v' }],
      ['a name twice', { 'X-A': 'one', 'x-a': 'two' }],
      ['a number', { 'X-A': 5 }],
      ['an array', ['X-A: v']],
      ['a string', 'X-A: v'],
    ];
    for (const [what, headers] of bad) {
      const answer = await create({ headers });
      assert.equal(answer.status, 400, what);
      assert.match(answer.body.error.message, /`headers`/, what);
    }
    // ntfy's own headers (and their aliases) only with format ntfy.
    for (const name of ['Title', 'priority', 'X-Tags', 'p'])
      assert.equal((await create({ format: 'ntfy', headers: { [name]: 'x' } })).status, 400, name);
    assert.equal(await count(), 0, 'nothing created');

    const plain = await create({ headers: { Title: 'kept', 'X-A': 'v'.repeat(1024) } });
    assert.equal(plain.status, 200, 'a Title is allowed where the format does not set one');
    const id = plain.body.id as number;
    const toNtfy = await call(`/v2/webhook/${id}`, 'PATCH', { format: 'ntfy' });
    assert.equal(toNtfy.status, 400, 'the kept Title would contradict the ntfy post');
    assert.match(toNtfy.body.error.message, /`headers`/);
    assert.equal((await call(`/v2/webhook/${id}`, 'GET')).body.format, 'namazu', 'unchanged');
    const anew = await call(`/v2/webhook/${id}`, 'PATCH', {
      format: 'ntfy',
      headers: { Click: 'https://x.test' },
    });
    assert.equal(anew.status, 200, JSON.stringify(anew.body));
    assert.deepEqual(anew.body.headerNames, ['Click']);
  } finally {
    await close();
  }
});
