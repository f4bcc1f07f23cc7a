/* eslint-disable @typescript-eslint/no-explicit-any -- WebSocket messages are inspected loosely */
/**
 * Test and training telegrams never reach a session that asked for `test: "no"` (the default), in
 * either format mode: the JSON conversion of a test XML telegram is as much a test as its XML.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { classifications } from '../../src/classifications.ts';
import { ingestFixtures } from '../support/data-api.ts';
import { fixtureIndex, restFixtureIndex, type FixtureEntry } from '../support/fixtures.ts';
import { TestClient } from '../support/realtime.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const READ_SCOPES = [
  'socket.start',
  'telegram.list',
  'eew.get.forecast',
  'eew.get.warning',
  'eew.get.realtime',
  'telegram.get.earthquake',
  'telegram.get.volcano',
  'telegram.get.weather',
  'telegram.get.forecast',
  'telegram.get.observation',
  'telegram.get.scheduled',
  'telegram.get.lightning',
];

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

async function open(key: string, body: Record<string, unknown>): Promise<TestClient> {
  const res = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ classifications, ...body }),
  });
  const json = (await res.json()) as any;
  assert.equal(res.status, 200, JSON.stringify(json));
  const client = new TestClient(json.websocket.url, 'service.v2');
  assert.equal((await client.next<any>()).type, 'start');
  return client;
}

/** Every `data` message up to and including one of the sentinel's (its XML or its conversion). */
async function readUntil(client: TestClient, sentinelIds: ReadonlySet<string>): Promise<any[]> {
  const got: any[] = [];
  for (;;) {
    const msg = await client.next<any>();
    if (msg.type === 'ping') client.send({ type: 'pong', pingId: msg.pingId });
    if (msg.type !== 'data') continue;
    got.push(msg);
    if (sentinelIds.has(msg.id)) return got;
  }
}

async function listedIds(key: string, query: string): Promise<string[]> {
  const res = await fetch(`${server.url}/v2/telegram?${query}`, {
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
  });
  return (((await res.json()) as any).items as { id: string }[]).map((i) => i.id);
}

test('test and training telegrams, and their JSON conversions, reach only sessions with test=including', async () => {
  const isTest = (e: FixtureEntry) => e.status === '訓練' || e.status === '試験';
  const testEntries = [...fixtureIndex(), ...restFixtureIndex()].filter(isTest);
  assert.ok(testEntries.length >= 30, `test and training fixtures: ${testEntries.length}`);
  const sentinel = fixtureIndex().find((e) => e.status === '通常' && e.type === 'VXSE53');
  assert.ok(sentinel, 'a normal VXSE53 fixture');

  const { account } = await server.createAccount({ contracts: [...classifications] });
  const key = await server.createApiKey(account.id, READ_SCOPES);
  const raw = await open(key, { formatMode: 'raw' });
  const json = await open(key, { formatMode: 'json' });
  const jsonIncluding = await open(key, { formatMode: 'json', test: 'including' });

  await ingestFixtures(server, testEntries);
  await ingestFixtures(server, [sentinel]);
  // The sentinel's ids, its XML and its conversion: the only normal telegrams stored.
  const sentinelIds = new Set([
    ...(await listedIds(key, 'test=no&formatMode=raw')),
    ...(await listedIds(key, 'test=no&formatMode=json')),
  ]);
  assert.equal(sentinelIds.size, 2, 'the sentinel is stored with its conversion');

  for (const [name, client] of [
    ['raw', raw],
    ['json', json],
  ] as const) {
    const got = await readUntil(client, sentinelIds);
    const leaked = got.filter((m) => m.head.test).map((m) => `${m.head.type} ${m.format}`);
    assert.deepEqual(leaked, [], `${name} mode received test telegrams`);
    assert.equal(got.length, 1, `${name}: only the sentinel`);
  }
  // The control: the same telegrams do reach a JSON session that asked for them, as conversions.
  const including = await readUntil(jsonIncluding, sentinelIds);
  const conversions = including.filter((m) => m.head.test && m.format === 'json');
  assert.ok(
    conversions.length >= 20,
    `test conversions delivered with test=including: ${conversions.length}`,
  );
  assert.ok(
    conversions.some((m) => m.head.type === 'VXSE42' || m.head.type === 'VTSE41'),
    'an early warning or tsunami warning among them',
  );
  for (const c of [raw, json, jsonIncluding]) c.ws.close();
});
