/* eslint-disable @typescript-eslint/no-explicit-any -- messages are inspected loosely */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { fixture } from '../support/fixtures.ts';
import { TestClient } from '../support/realtime.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const SCOPES = ['socket.start', 'socket.list', 'eew.get.warning', 'telegram.get.weather'];
const CLASSIFICATIONS = ['eew.warning', 'telegram.weather'];

async function account() {
  const { account } = await server.createAccount({ contracts: CLASSIFICATIONS });
  return server.createApiKey(account.id, SCOPES);
}

async function post(key: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** A socket of an account of its own (an account's connections are limited). */
async function connect(filters: Record<string, unknown>) {
  const key = await account();
  const started = await post(key, '/v2/socket', { classifications: CLASSIFICATIONS, ...filters });
  assert.equal(started.status, 200, JSON.stringify(started.json));
  const client = new TestClient(started.json.websocket.url);
  assert.equal((await client.next()).type, 'start');
  return client;
}

async function ingest(raw: Buffer): Promise<string> {
  const outcome = await ingestTelegram(server.ctx, raw, { receivedTime: Date.now() });
  assert.ok(outcome.ok && !outcome.stored.duplicate);
  return outcome.stored.id;
}

/** The next `data` message's id (pings and other messages skipped). */
async function nextData(client: TestClient): Promise<string> {
  for (;;) {
    const m = await client.next<Record<string, any>>();
    if (m.type === 'data') return m.id as string;
  }
}

test(
  'filtered sockets get only the telegrams of their places and strength; a cancellation follows its warning',
  { timeout: 30_000 },
  async () => {
    const ishikawa = await connect({ areas: ['17'] });
    const noto = await connect({ areas: ['390'], minIntensity: '5-' });
    const tokyo = await connect({ areas: ['13'] });
    const strong = await connect({ minIntensity: '5+' });
    const everything = await connect({});

    // 石川県能登 (390, Ishikawa 17), forecast up to 5-.
    const warning = await ingest(readFileSync(fixture('real', '20240116184225_02245216_VXSE43.xml')));
    // The cancellation of that warning: JMA's sample cancellation, of the same event. It names no area.
    const sample = readFileSync(fixture('official', '37_01_03_240613_VXSE43.xml'), 'utf8');
    assert.ok(sample.includes('<EventID>20240417231454</EventID>') && sample.includes('取消'));
    const cancellation = await ingest(
      Buffer.from(
        sample.replaceAll('20240417231454', '20240116184216').replaceAll('2024-04-17T', '2024-01-16T'),
      ),
    );
    // Tokyo's warnings (areas 13…): not an earthquake, so minIntensity does not judge it.
    const weather = await ingest(readFileSync(fixture('official', '15_14_01_170216_VPWW53.xml')));

    for (const client of [ishikawa, noto, everything]) {
      assert.equal(await nextData(client), warning);
      assert.equal(await nextData(client), cancellation);
    }
    assert.equal(await nextData(everything), weather);
    assert.equal(await nextData(tokyo), weather);
    assert.equal(await nextData(strong), weather);
    // Delivered to every group in one pass: what Ishikawa's filters dropped is not coming.
    assert.equal(ishikawa.pending, 0);
    assert.equal(noto.pending, 0);
    for (const c of [ishikawa, noto, tokyo, strong, everything]) c.ws.close();
  },
);

test('bad areas or minIntensity: 400 naming the field, no session started', async () => {
  const key = await account();
  const cases: [Record<string, unknown>, string][] = [
    [{ areas: ['48'] }, 'areas'],
    [{ areas: ['ishikawa'] }, 'areas'],
    [{ areas: '17' }, 'areas'],
    [{ areas: Array.from({ length: 101 }, (_, i) => String(100 + i)) }, 'areas'],
    [{ minIntensity: '5' }, 'minIntensity'],
    [{ minIntensity: 5 }, 'minIntensity'],
  ];
  for (const [filters, field] of cases) {
    const r = await post(key, '/v2/socket', { classifications: CLASSIFICATIONS, ...filters });
    assert.equal(r.status, 400, JSON.stringify(filters));
    assert.equal(r.json.error.code, 400);
    assert.match(r.json.error.message, new RegExp(`\`${field}\``), JSON.stringify(r.json));
  }
  const list = await post(key, '/v2/socket');
  assert.equal(list.status, 200);
  assert.deepEqual(list.json.items, []);
});
