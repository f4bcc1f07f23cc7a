// One reader of the client address (src/http/client-address.ts): the address a WebSocket session
// records (the raw upgrade, outside Fastify) and the one a REST request's session records
// (`GET /v2/stream`: Fastify's `request.ip`) are the same, behind a trusted proxy and without one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { addressGroup } from '../../src/http/client-address.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The header two proxies sent, whose first entry is empty: Fastify (proxy-addr) skips it and takes
 * the address after it; a reader of its own that took the first entry would find nothing there. To
 * one proxy, the client wrote everything before the last entry itself.
 */
const FORWARDED = ', 203.0.113.7, 198.51.100.2';
const CLIENT = '203.0.113.7';
const PROXIED = '198.51.100.2';

async function recordedAddresses(server: TestServer): Promise<{ socket: string; stream: string }> {
  // The socket and the stream: two connections at once.
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake', 'websocket.plus2'] });
  const key = await server.createApiKey(account.id, [
    'socket.start',
    'socket.list',
    'telegram.get.earthquake',
  ]);
  const headers = {
    authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    'x-forwarded-for': FORWARDED,
  };
  const started = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
  });
  const body = (await started.json()) as { websocket: { id: number; url: string } };
  assert.equal(started.status, 200, JSON.stringify(body));
  const { websocket } = body;
  const ws = new WebSocket(websocket.url, 'service.v2', { headers: { 'x-forwarded-for': FORWARDED } });
  const first = await new Promise<{ type: string }>((resolve, reject) => {
    ws.once('message', (data) => resolve(JSON.parse(data.toString()) as { type: string }));
    ws.once('error', reject);
  });
  assert.equal(first.type, 'start');

  const aborting = new AbortController();
  const stream = await fetch(`${server.url}/v2/stream?classifications=telegram.earthquake`, {
    headers,
    signal: aborting.signal,
  });
  assert.equal(stream.status, 200);
  const listed = await fetch(`${server.url}/v2/socket?status=open`, { headers });
  const { items } = (await listed.json()) as { items: { id: number; ipAddress: string }[] };
  aborting.abort();
  ws.close();
  assert.equal(items.length, 2, 'the socket and the stream');
  const socket = items.find((s) => s.id === websocket.id)!.ipAddress;
  const other = items.find((s) => s.id !== websocket.id)!.ipAddress;
  return { socket, stream: other };
}

test('behind two trusted proxies, a socket and a REST request record the client the farther one names', async () => {
  const server = await startTestServer({ config: { trustProxy: 2 } });
  try {
    assert.deepEqual(await recordedAddresses(server), { socket: CLIENT, stream: CLIENT });
  } finally {
    await server.close();
  }
});

test('behind one trusted proxy, the address it appended counts, not what the client wrote before it', async () => {
  const server = await startTestServer({ config: { trustProxy: 1 } });
  try {
    assert.deepEqual(await recordedAddresses(server), { socket: PROXIED, stream: PROXIED });
  } finally {
    await server.close();
  }
});

test('without a trusted proxy, both record the peer and ignore the header', async () => {
  const server = await startTestServer({ config: { trustProxy: 0 } });
  try {
    assert.deepEqual(await recordedAddresses(server), { socket: '127.0.0.1', stream: '127.0.0.1' });
  } finally {
    await server.close();
  }
});

test('the per-address limits count an IPv6 address as its /64 network, an IPv4 one (mapped or not) as itself', () => {
  const cases: [string, string][] = [
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0db8:0000:0000:ffff:0:0:2', '2001:db8:0:0::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:3:4:198.51.100.2', '2001:db8:1:2::/64'],
    ['64:ff9b::198.51.100.2', '64:ff9b:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['1::', '1:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ];
  for (const [address, group] of cases) assert.equal(addressGroup(address), group, address);
});
