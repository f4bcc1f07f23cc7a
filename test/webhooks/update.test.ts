// A webhook's settings changed in place (docs/webhooks.md "Subscriptions"): `PATCH /v2/webhook/:id`
// with the fields to change, checked as at creation; the id, the secret and the deliveries stay, and
// the next telegram goes where and as the new settings say. Bad input changes nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { ingestVariant } from '../support/ingest-variant.ts';
import { startTestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { startReceiver } from './receiver.ts';

const QUAKE = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'));

async function setUp() {
  const [first, second] = [await startReceiver({ status: 204 }), await startReceiver({ status: 204 })];
  const server = await startTestServer({ listen: false, config: { webhookAllowPrivate: true } });
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const scopes = ['webhook.manage', 'webhook.list', 'telegram.get.earthquake', 'telegram.get.volcano'];
  const auth = (key: string) => ({
    authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    'content-type': 'application/json',
  });
  const headers = auth(await server.createApiKey(account.id, scopes));
  const created = await getJson(server, '/v2/webhook', {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: first.url, classifications: ['telegram.earthquake'], lang: 'ja' }),
  });
  const close = async () => {
    await server.close();
    await first.close();
    await second.close();
  };
  if (created.status !== 200) {
    await close();
    assert.fail(JSON.stringify(created.body));
  }
  const id = created.body.id as number;
  const patch = (body: unknown, as = headers, which: number | string = id) =>
    getJson(server, `/v2/webhook/${which}`, {
      method: 'PATCH',
      headers: as,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const read = async () => (await getJson(server, `/v2/webhook/${id}`, { headers })).body;
  return {
    server,
    first,
    second,
    account,
    auth,
    headers,
    id,
    secret: created.body.secret as string,
    patch,
    read,
    close,
  };
}

test('PATCH changes the settings given and keeps the rest, the id, the secret and the deliveries', async () => {
  const { server, first, second, id, secret, patch, read, close } = await setUp();
  try {
    await ingestVariant(server, QUAKE);
    await waitFor(() => first.received.length === 1, { message: 'the first telegram at the first URL' });

    const changed = await patch({ url: second.url, types: ['VXSE53'], format: 'slack', lang: 'en' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.id, id);
    assert.equal(changed.body.url, second.url);
    assert.equal(changed.body.format, 'slack');
    assert.equal(changed.body.lang, 'en');
    assert.deepEqual(changed.body.types, ['VXSE53']);
    assert.deepEqual(changed.body.classifications, ['telegram.earthquake'], 'kept');
    assert.equal(changed.body.secret, undefined, 'the secret is not shown');
    const after = await read();
    assert.equal(after.url, second.url);
    assert.equal(after.deliveries.length, 1, 'the deliveries stay');

    // The next telegram goes to the new URL, in the new format, signed with the same secret.
    await ingestVariant(server, QUAKE);
    await waitFor(() => second.received.length === 1, { message: 'the next telegram at the new URL' });
    const arrived = second.received[0]!;
    new Webhook(secret).verify(arrived.body, arrived.headers);
    const post = JSON.parse(arrived.body) as { text: string; blocks: unknown[] };
    assert.equal(typeof post.text, 'string');
    assert.ok(Array.isArray(post.blocks), 'a Slack post');
    assert.doesNotMatch(post.text, /[ぁ-んァ-ン]/, 'in English');
    assert.equal(first.received.length, 1, 'nothing more to the old URL');

    // A strength filter the next telegram does not reach (the sample reports no intensity): not sent.
    const strong = await patch({ minIntensity: '5+' });
    assert.equal(strong.body.minIntensity, '5+');
    await ingestVariant(server, QUAKE);
    await server.app.webhooks.settled();
    const queued = await server.ctx.db.query('SELECT id FROM webhook_deliveries');
    assert.equal(queued.length, 2, 'filtered out by the new minimum: nothing queued');

    // null clears a filter; {} changes nothing.
    const cleared = await patch({ minIntensity: null, types: null });
    assert.equal(cleared.body.minIntensity, null);
    assert.equal(cleared.body.types, null);
    const same = await patch({});
    assert.equal(same.status, 200);
    assert.deepEqual(
      { ...same.body, responseId: 0, responseTime: 0 },
      { ...cleared.body, responseId: 0, responseTime: 0 },
    );
  } finally {
    await close();
  }
});

test('a Misskey webhook keeps its token unless given one; leaving Misskey drops it and its note options', async () => {
  const { server, second, patch, read, close } = await setUp();
  try {
    const toMisskey = await patch({ format: 'misskey', url: second.url });
    assert.equal(toMisskey.status, 400);
    assert.match(toMisskey.body.error.message, /`token`/);
    assert.equal((await read()).format, 'namazu', 'nothing changed');

    const made = await patch({ format: 'misskey', url: second.url, token: 'token-1', visibility: 'home' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.visibility, 'home');
    // Another setting changed: the token and the visibility stay.
    const relang = await patch({ lang: 'en' });
    assert.equal(relang.status, 200);
    assert.equal(relang.body.visibility, 'home');
    await ingestVariant(server, QUAKE);
    await waitFor(() => second.received.length === 1, { message: 'the note posted' });
    const note = JSON.parse(second.received[0]!.body) as { i: string; visibility: string };
    assert.equal(note.i, 'token-1');
    assert.equal(note.visibility, 'home');

    const back = await patch({ format: 'namazu' });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.equal(back.body.visibility, undefined);
    const [row] = await server.ctx.db.query<{ token_sealed: string | null; visibility: string | null }>(
      'SELECT token_sealed, visibility FROM webhook_subscriptions WHERE id = $1',
      [back.body.id],
    );
    assert.deepEqual(row, { token_sealed: null, visibility: null });
  } finally {
    await close();
  }
});

test("bad input is a 400 naming the field; classifications need a contract and their scope; not one's own is 404", async () => {
  const { server, account, auth, id, patch, read, close } = await setUp();
  try {
    const before = await read();
    const cases: [unknown, RegExp][] = [
      [{ url: 'not a url' }, /`url`/],
      [{ url: 'ftp://hooks.example.test/' }, /`url` must be https/],
      [{ classifications: [] }, /`classifications`/],
      [{ format: 'teams' }, /`format`/],
      [{ token: 'abc' }, /`token`/],
      [{ lang: 'fr' }, /`lang`/],
      [{ areas: ['tokyo'] }, /`areas`/],
      [{ minIntensity: '8' }, /`minIntensity`/],
      [{ visibility: 'home' }, /`visibility`/],
      ['{not json', /not json/],
      ['{"__proto__":{"url":"x"}}', /not json/],
    ];
    for (const [body, message] of cases) {
      const res = await patch(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error.message, message, JSON.stringify(body));
    }
    // A classification without a contract: none left is 402; one without its scope is 403.
    const noContract = await patch({ classifications: ['telegram.volcano'] });
    assert.equal(noContract.status, 402, JSON.stringify(noContract.body));
    const scoped = auth(await server.createApiKey(account.id, ['webhook.manage']));
    assert.equal((await patch({ classifications: ['telegram.earthquake'] }, scoped)).status, 403);
    const listOnly = auth(await server.createApiKey(account.id, ['webhook.list']));
    assert.equal((await patch({ lang: 'en' }, listOnly)).status, 403);
    const other = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const stranger = auth(
      await server.createApiKey(other.account.id, ['webhook.manage', 'telegram.get.earthquake']),
    );
    const notTheirs = await patch({ lang: 'en' }, stranger);
    assert.equal(notTheirs.status, 404);
    assert.equal(notTheirs.body.error.message, 'Webhook ID not found.');
    assert.equal((await patch({ lang: 'en' }, undefined, 'abc')).status, 404);
    const after = await read();
    assert.deepEqual(
      { ...after, responseId: 0, responseTime: 0 },
      { ...before, responseId: 0, responseTime: 0 },
    );
    assert.equal(id, after.id);
  } finally {
    await close();
  }
});
