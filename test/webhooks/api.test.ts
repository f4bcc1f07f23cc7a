// The webhook API's refusals: bad input names its field and creates nothing; URLs that point at this
// machine or its networks are refused at creation and, for names, at connection time.
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { test } from 'node:test';
import { getJson } from '../support/data-api.ts';
import { startTestServer } from '../support/server.ts';
import { AddressResolver, isRefusedAddress } from '../../src/webhooks/address-guard.ts';
import { Sender } from '../../src/webhooks/sender.ts';
import { startReceiver } from './receiver.ts';
import { readFileSync } from 'node:fs';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { fixture } from '../support/fixtures.ts';
import { waitFor } from '../support/wait.ts';

const SCOPES = [
  'webhook.manage',
  'webhook.list',
  'telegram.get.earthquake',
  'telegram.get.volcano',
  'eew.get.forecast',
];

async function setUp(allowPrivate: boolean) {
  const server = await startTestServer({ listen: false, config: { webhookAllowPrivate: allowPrivate } });
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake', 'eew.forecast'] });
  const key = await server.createApiKey(account.id, SCOPES);
  const headers = {
    authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    'content-type': 'application/json',
  };
  const create = (body: unknown) =>
    getJson(server, '/v2/webhook', {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const count = async () => (await getJson(server, '/v2/webhook', { headers })).body.items.length as number;
  return { server, headers, create, count, accountId: account.id };
}

test('bad input is a 400 that names the field, and creates nothing', async () => {
  const { server, create, count } = await setUp(false);
  try {
    const ok = { url: 'https://hooks.example.test/namazu', classifications: ['telegram.earthquake'] };
    const cases: [unknown, RegExp][] = [
      [{ ...ok, url: 'not a url' }, /`url`/],
      [{ ...ok, url: 'ftp://hooks.example.test/' }, /`url` must be https/],
      // A receiver on one's own machine is the first one tried: the refusal names the setting that allows it.
      [
        { ...ok, url: 'http://hooks.example.test/' },
        /`url` must be https .*NAMAZU_WEBHOOK_ALLOW_PRIVATE=true/,
      ],
      [
        { ...ok, url: 'https://127.0.0.1:8000/' },
        /loopback.*refused .*NAMAZU_WEBHOOK_ALLOW_PRIVATE=true on the server/,
      ],
      [{ ...ok, url: 'https://user:pw@hooks.example.test/' }, /`url` may not hold/],
      [{ ...ok, url: `https://hooks.example.test/${'a'.repeat(3000)}` }, /`url`/],
      [{ ...ok, url: 42 }, /`url`/],
      [{ url: ok.url }, /`classifications`/],
      [{ ...ok, classifications: [] }, /`classifications`/],
      [{ ...ok, format: 'teams' }, /`format`/],
      [{ ...ok, format: 'misskey' }, /`token`/],
      [{ ...ok, token: 'abc' }, /`token`/],
      [{ ...ok, lang: 'fr' }, /`lang`/],
      [{ ...ok, test: 'yes' }, /`test`/],
      [{ ...ok, formatMode: 'xml' }, /`formatMode`/],
      [{ ...ok, areas: ['tokyo'] }, /`areas`/],
      [{ ...ok, minIntensity: '8' }, /`minIntensity`/],
      ['{not json', /not json/],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 200));
      assert.match(res.body.error.message, message, JSON.stringify(body).slice(0, 200));
    }
    assert.equal(await count(), 0);
    // The same request, well formed, is created.
    const created = await create({ ...ok, format: 'misskey', token: 'misskey-token', lang: 'en' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(await count(), 1);
    assert.equal(created.body.format, 'misskey');
    assert.equal(JSON.stringify(created.body).includes('misskey-token'), false, 'the token is never shown');
  } finally {
    await server.close();
  }
});

test('addresses of this machine and its networks are refused at creation unless allowed', async () => {
  const { server, create, count } = await setUp(false);
  try {
    for (const host of [
      '127.0.0.1',
      '127.1.2.3',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '224.0.0.1',
      '[::1]',
      '[::]',
      '[fd00:ec2::254]',
      '[fe80::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:a9fe:a9fe]',
      'localhost',
      'api.localhost',
    ]) {
      const res = await create({ url: `https://${host}/hook`, classifications: ['telegram.earthquake'] });
      assert.equal(res.status, 400, host);
      assert.match(res.body.error.message, /`url` points at/, host);
    }
    assert.equal(await count(), 0);
  } finally {
    await server.close();
  }
  const allowed = await setUp(true);
  try {
    const res = await allowed.create({
      url: 'http://127.0.0.1:9/hook',
      classifications: ['telegram.earthquake'],
    });
    assert.equal(res.status, 200);
  } finally {
    await allowed.server.close();
  }
});

test('a name that resolves to a refused address is refused when connecting (DNS rebinding)', async () => {
  assert.equal(isRefusedAddress('93.184.215.14'), false);
  assert.equal(isRefusedAddress('2606:2800:21f:cb07:6820:80da:af6b:8b2c'), false);
  const resolver = new AddressResolver({ allowPrivate: false, limitMs: 1000 });
  const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
    resolver.lookup('localhost', {}, (err) => resolve(err)),
  );
  resolver.close();
  assert.equal(refused?.code, 'ADDRESS_REFUSED');
  // The machine's own name resolves to one of its addresses (loopback or a private network here):
  // a URL naming it passes the check of the literal URL, and the connection is refused.
  const own = hostname();
  const addresses = await lookup(own, { all: true });
  assert.ok(
    addresses.every((a) => isRefusedAddress(a.address)),
    `${own} resolves to ${JSON.stringify(addresses)}`,
  );
  const receiver = await startReceiver();
  const sender = new Sender({
    timeoutMs: 2000,
    maxResponseBytes: 1024,
    maxSocketsPerHost: 2,
    idleMs: 5000,
    allowPrivate: false,
  });
  try {
    const outcome = await sender.send({
      url: `https://${own}:${receiver.port}/hook`,
      headers: {},
      body: Buffer.from('{}'),
    });
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error, 'address refused');
    assert.equal(receiver.received.length, 0);
  } finally {
    sender.close();
    await receiver.close();
  }
});

test('subscriptions: list, read with deliveries, test event, redelivery, delete; another account sees none', async () => {
  const receiver = await startReceiver();
  const { server, create, headers } = await setUp(true);
  try {
    const created = await create({ url: receiver.url, classifications: ['telegram.earthquake'] });
    const id = created.body.id as number;
    const auth = { authorization: headers.authorization };
    const tested = await getJson(server, `/v2/webhook/${id}/test`, { method: 'POST', headers: auth });
    assert.equal(tested.status, 200);
    assert.equal(tested.body.delivery.delivered, true);
    assert.equal(tested.body.delivery.status, 200);
    assert.equal(receiver.received.length, 1);
    assert.equal(JSON.parse(receiver.received[0]!.body).type, 'webhook.test');
    const read = await getJson(server, `/v2/webhook/${id}`, { headers });
    assert.equal(read.body.state, 'active');
    assert.equal(read.body.deliveries.length, 1);
    assert.equal(read.body.deliveries[0].kind, 'test');
    assert.equal('secret' in read.body, false);
    // A test event is not redelivered; an unknown delivery is not found.
    const again = await getJson(
      server,
      `/v2/webhook/${id}/deliveries/${read.body.deliveries[0].id}/redeliver`,
      {
        method: 'POST',
        headers,
      },
    );
    assert.equal(again.status, 404);
    // Another account's key sees nothing of it.
    const other = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const otherKey = await server.createApiKey(other.account.id, ['webhook.list', 'webhook.manage']);
    const otherHeaders = { authorization: `Basic ${Buffer.from(`${otherKey}:`).toString('base64')}` };
    assert.equal((await getJson(server, `/v2/webhook/${id}`, { headers: otherHeaders })).status, 404);
    assert.equal(
      (await getJson(server, `/v2/webhook/${id}`, { method: 'DELETE', headers: otherHeaders })).status,
      404,
    );
    // Without the scope.
    const readOnly = await server.createApiKey(other.account.id, ['webhook.list']);
    const refused = await getJson(server, '/v2/webhook', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${readOnly}:`).toString('base64')}` },
      body: JSON.stringify({ url: receiver.url, classifications: ['telegram.earthquake'] }),
    });
    assert.equal(refused.status, 403);
    const deleted = await getJson(server, `/v2/webhook/${id}`, { method: 'DELETE', headers: auth });
    assert.equal(deleted.status, 204);
    assert.equal((await getJson(server, '/v2/webhook', { headers })).body.items.length, 0);
  } finally {
    await server.close();
    await receiver.close();
  }
});

test('a test event whose webhook is deleted while it is posted answers 404; a disabled webhook is not redelivered (409)', async () => {
  let answer = () => {};
  const receiver = await startReceiver((_req, res) => {
    answer = () => res.writeHead(200).end('ok');
  });
  const { server, create, headers } = await setUp(true);
  try {
    const id = (await create({ url: receiver.url, classifications: ['telegram.earthquake'] })).body
      .id as number;
    const auth = { authorization: headers.authorization };
    const testing = getJson(server, `/v2/webhook/${id}/test`, { method: 'POST', headers: auth });
    await waitFor(() => receiver.received.length === 1, { message: 'the test event posted' });
    const deleted = await getJson(server, `/v2/webhook/${id}`, { method: 'DELETE', headers: auth });
    assert.equal(deleted.status, 204);
    answer();
    const tested = await testing;
    assert.equal(tested.status, 404, JSON.stringify(tested.body));
    assert.equal(tested.body.error.message, 'Webhook ID not found.');

    receiver.answer({ status: 200 });
    const disabled = (await create({ url: receiver.url, classifications: ['telegram.earthquake'] })).body
      .id as number;
    const stored = await ingestTelegram(
      server.ctx,
      readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml')),
      {
        receivedTime: Date.now(),
      },
    );
    assert.ok(stored.ok);
    const telegram = stored.stored.serial;
    // Its delivery, queued by the queuer (waited for), failed as days of failures leave it.
    await server.app.webhooks.settled();
    const [delivery] = await server.ctx.db.query<{ id: number }>(
      `UPDATE webhook_deliveries SET state = 'failed' WHERE subscription_id = $1 AND serial = $2 RETURNING id`,
      [disabled, telegram],
    );
    assert.ok(delivery, 'the delivery queued');
    await server.ctx.db.query("UPDATE webhook_subscriptions SET state = 'disabled' WHERE id = $1", [
      disabled,
    ]);
    const redelivered = await getJson(
      server,
      `/v2/webhook/${disabled}/deliveries/${delivery!.id}/redeliver`,
      {
        method: 'POST',
        headers: auth,
      },
    );
    assert.equal(redelivered.status, 409);
    assert.equal(
      redelivered.body.error.message,
      'The webhook is disabled: enable it again first (POST /v2/webhook/:id/enable).',
    );
    const [row] = await server.ctx.db.query<{ state: string }>(
      'SELECT state FROM webhook_deliveries WHERE id = $1',
      [delivery!.id],
    );
    assert.equal(row!.state, 'failed');
  } finally {
    await server.close();
    await receiver.close();
  }
});

test('an account holds at most 20 webhooks; classifications it has no contract for are refused', async () => {
  const { server, create, headers } = await setUp(false);
  try {
    const noContract = await create({
      url: 'https://hooks.example.test/',
      classifications: ['telegram.volcano'],
    });
    assert.equal(noContract.status, 402, JSON.stringify(noContract.body));
    for (let i = 0; i < 20; i++) {
      const res = await create({
        url: `https://hooks.example.test/${i}`,
        classifications: ['telegram.earthquake'],
      });
      assert.equal(res.status, 200);
    }
    const over = await create({
      url: 'https://hooks.example.test/over',
      classifications: ['telegram.earthquake'],
    });
    assert.equal(over.status, 409);
    assert.equal((await getJson(server, '/v2/webhook', { headers })).body.items.length, 20);
  } finally {
    await server.close();
  }
});

test('misskey notes: visibility and localOnly are chosen at creation, shown, and posted with the token; other formats refuse them', async () => {
  const receiver = await startReceiver();
  const { server, create, headers } = await setUp(true);
  try {
    const ok = { url: receiver.url, classifications: ['telegram.earthquake'], test: 'including' };
    const misskey = { ...ok, format: 'misskey', token: 'misskey-token' };
    const cases: [unknown, RegExp][] = [
      [{ ...ok, format: 'discord', visibility: 'home' }, /`visibility`/],
      [{ ...ok, visibility: 'followers' }, /`visibility`/],
      [{ ...ok, format: 'slack', localOnly: true }, /`localOnly`/],
      // A token of blanks alone (a paste gone wrong) would fail every post.
      [{ ...misskey, token: '  \n ' }, /`token`/],
      [{ ...misskey, visibility: 'specified' }, /`visibility`/],
      [{ ...misskey, localOnly: 'yes' }, /`localOnly`/],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error.message, message, JSON.stringify(body));
    }
    assert.equal((await getJson(server, '/v2/webhook', { headers })).body.items.length, 0, 'nothing created');
    // The defaults given with another format are what a form always sends: the same as none given.
    const defaults = await create({ ...ok, format: 'slack', visibility: 'public', localOnly: false });
    assert.equal(defaults.status, 200, JSON.stringify(defaults.body));
    assert.equal('visibility' in defaults.body || 'localOnly' in defaults.body, false);
    assert.equal(
      (await getJson(server, `/v2/webhook/${defaults.body.id}`, { headers })).body.format,
      'slack',
    );
    assert.equal(
      (await getJson(server, `/v2/webhook/${defaults.body.id}`, { method: 'DELETE', headers })).status,
      204,
    );

    const chosen = await create({ ...misskey, visibility: 'home', localOnly: true });
    assert.equal(chosen.status, 200, JSON.stringify(chosen.body));
    assert.equal(chosen.body.visibility, 'home');
    assert.equal(chosen.body.localOnly, true);
    const plain = await create({ ...misskey, token: 'plain-token' });
    assert.equal(plain.body.visibility, 'public');
    assert.equal(plain.body.localOnly, false);
    // Other formats show nothing new.
    const discord = await create({ ...ok, format: 'discord' });
    assert.equal('visibility' in discord.body || 'localOnly' in discord.body, false);
    const listed = (await getJson(server, '/v2/webhook', { headers })).body.items as Record<
      string,
      unknown
    >[];
    assert.deepEqual(
      listed.map((s) => [s.format, s.visibility, s.localOnly]),
      [
        ['misskey', 'home', true],
        ['misskey', 'public', false],
        ['discord', undefined, undefined],
      ],
    );
    const read = await getJson(server, `/v2/webhook/${chosen.body.id}`, { headers });
    assert.equal(read.body.visibility, 'home');
    assert.equal(read.body.localOnly, true);

    // A test event and a telegram are posted as notes with the token as `i` and the options chosen.
    const auth = { authorization: headers.authorization };
    const tested = await getJson(server, `/v2/webhook/${chosen.body.id}/test`, {
      method: 'POST',
      headers: auth,
    });
    assert.equal(tested.body.delivery.delivered, true);
    const testNote = JSON.parse(receiver.received.at(-1)!.body);
    assert.deepEqual([testNote.i, testNote.visibility, testNote.localOnly], ['misskey-token', 'home', true]);
    const stored = await ingestTelegram(
      server.ctx,
      readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml')),
      { receivedTime: Date.now() },
    );
    assert.ok(stored.ok);
    const notes = await waitFor(
      () => {
        const bodies = receiver.received.slice(1).map((r) => JSON.parse(r.body) as Record<string, unknown>);
        const found = bodies.filter((b) => typeof b.i === 'string');
        return found.length === 2 ? found : null;
      },
      { timeout: 15_000, message: 'both notes at the receiver' },
    );
    const byToken = new Map(notes.map((n) => [n.i, n]));
    const home = byToken.get('misskey-token')!;
    assert.equal(home.visibility, 'home');
    assert.equal(home.localOnly, true);
    assert.match(
      receiver.received.find((r) => r.body.includes('"i":"misskey-token"'))!.body,
      /"visibility":"home","localOnly":true/,
    );
    const publicNote = byToken.get('plain-token')!;
    assert.equal(publicNote.visibility, 'public');
    assert.equal('localOnly' in publicNote, false, 'federated, as Misskey does by default');
  } finally {
    await server.close();
    await receiver.close();
  }
});
