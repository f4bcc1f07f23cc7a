/**
 * The public streams (docs/realtime.md "Public streams"): GET /v2/public/stream and
 * /v2/public/websocket read the classifications an operator made public without any credential,
 * with the stream's filters and resume; anonymous connections are bounded per address, in total and
 * by rate, and counted in the metrics; with no public classification both are unknown (404).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { Browser, signInThroughForm } from '../support/browser.ts';
import { fixture } from '../support/fixtures.ts';
import { SseClient } from '../support/sse.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));
const QUAKE = readFileSync(fixture('rest', '32-35_06_05_240613_VXSE53.xml'));

let server: TestServer;
before(async () => {
  server = await startTestServer({
    config: { publicClassifications: ['eew.forecast', 'telegram.earthquake'], pingIntervalMs: 1000 },
  });
});
after(() => server.close());

let variant = 0;
/** Stores one distinct telegram; its id. */
async function ingest(xml: Buffer, fileName: string, into: TestServer = server): Promise<string> {
  const raw = Buffer.concat([xml, Buffer.from(`\n<!-- public ${++variant} ${Date.now()} -->\n`)]);
  const out = await ingestTelegram(
    { db: into.ctx.db, bus: into.ctx.bus, telegrams: into.ctx.telegrams },
    raw,
    {
      fileName,
      receivedTime: Date.now(),
    },
  );
  assert.ok(out.ok);
  return out.stored.id;
}
const ingestEew = (into?: TestServer) => ingest(EEW, '77_01_03_240613_VXSE45.xml', into);
const ingestQuake = (into?: TestServer) => ingest(QUAKE, '32-35_06_05_240613_VXSE53.xml', into);

/** A `ws` client of the public WebSocket: every message it receives, and how it closed. */
class PublicSocket {
  readonly messages: Record<string, any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  closed: { code: number; reason: string } | null = null;
  status = 0;
  readonly ws: WebSocket;
  constructor(url: string, localAddress?: string) {
    this.ws = new WebSocket(url, ['service.v2'], { perMessageDeflate: false, localAddress });
    this.ws.on('error', () => {});
    this.ws.on('unexpected-response', (_req, res) => {
      this.status = res.statusCode ?? 0;
      this.closed = { code: 0, reason: '' };
    });
    this.ws.on('message', (data) => {
      const msg = JSON.parse(String(data));
      this.messages.push(msg);
      if (msg.type === 'ping') this.ws.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
    });
    this.ws.on('close', (code, reason) => (this.closed = { code, reason: String(reason) }));
  }
  of(type: string) {
    return this.messages.filter((m) => m.type === type);
  }
}

const wsUrl = (into: TestServer, query: string) =>
  `${into.url.replace('http', 'ws')}/v2/public/websocket${query ? `?${query}` : ''}`;

/**
 * A GET on a connection of its own (fetch's pool may hold a spare connection that delays the
 * server's close): its status and headers once they arrive; `close` drops it.
 */
function openGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, headers }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, close: () => req.destroy() });
    }).on('error', reject);
  });
}

/** The administration's status page, as an administrator signed in through the form sees it. */
async function adminStatusPage(): Promise<string> {
  const { account, password } = await server.createAccount({ admin: true });
  const browser = new Browser();
  const gate = await browser.get(`${server.url}/console/admin`);
  await signInThroughForm(browser, gate.headers.get('location')!, account.email, password);
  return (await browser.get(`${server.url}/console/admin`)).text();
}

async function gauge(into: TestServer, transport: string): Promise<number> {
  const m = await into.ctx.metrics.publicConnections.get();
  return m.values.find((v) => v.labels.transport === transport)?.value ?? 0;
}

async function refused(into: TestServer, reason: string): Promise<number> {
  const m = await into.ctx.metrics.publicRefused.get();
  return m.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

test('without credentials a stream and a socket receive the public classifications, each through its filters', async () => {
  const all = new SseClient(`${server.url}/v2/public/stream`);
  const quakes = new SseClient(
    `${server.url}/v2/public/stream?classifications=telegram.earthquake&formatMode=json`,
  );
  const eewTypes = new SseClient(`${server.url}/v2/public/stream?types=VXSE45`);
  const socket = new PublicSocket(wsUrl(server, 'classifications=eew.forecast'));
  assert.equal(await all.opened, 200);
  assert.equal(await quakes.opened, 200);
  assert.equal(await eewTypes.opened, 200);
  await waitFor(() => socket.of('start').length === 1, { message: 'start message' });
  const start = socket.of('start')[0]!;
  assert.deepEqual(start.classifications, ['eew.forecast']);
  assert.ok(start.socketId < 0, `an anonymous socket id is negative: ${start.socketId}`);
  await waitFor(
    async () => (await gauge(server, 'stream')) === 3 && (await gauge(server, 'websocket')) === 1,
    {
      message: 'open public connections in the gauge',
    },
  );

  // Operators see them on the administration's status page too.
  assert.match(
    await adminStatusPage(),
    /Open anonymous connections of the public streams \(this process\)<\/th><td>4<\/td>/,
  );

  const eewId = await ingestEew();
  const quakeId = await ingestQuake();
  await waitFor(() => all.data().length === 2, { message: 'both telegrams on the unfiltered stream' });
  assert.deepEqual(
    all.events.filter((e) => e.event === 'data').map((e) => e.id),
    [eewId, quakeId],
  );
  await waitFor(() => quakes.data().length === 1 && socket.of('data').length === 1, { message: 'filtered' });
  // A JSON conversion carries its own id; the telegram's is its originalId.
  assert.equal(quakes.data()[0]!.originalId, quakeId);
  assert.equal(quakes.data()[0]!.format, 'json');
  assert.equal(socket.of('data')[0]!.id, eewId);
  await waitFor(() => eewTypes.data().length === 1, { message: 'types filter' });
  assert.equal(eewTypes.data()[0]!.id, eewId);
  // The socket is pinged and answers like a ticket's socket; nothing else arrives on the filtered ones.
  await waitFor(() => socket.of('ping').length >= 1, { message: 'a ping' });
  assert.equal(socket.closed, null);
  assert.equal(quakes.data().length, 1);

  for (const c of [all, quakes, eewTypes]) c.abort();
  socket.ws.close();
  await waitFor(
    async () => (await gauge(server, 'stream')) === 0 && (await gauge(server, 'websocket')) === 0,
    {
      message: 'connections released',
    },
  );
  // None of them is a session of any account.
  assert.deepEqual(await server.ctx.db.query('SELECT id FROM socket_sessions'), []);
});

test('a classification that is not public, or a malformed filter, is refused with its documented message', async () => {
  const weather = await fetch(`${server.url}/v2/public/stream?classifications=telegram.weather`);
  assert.equal(weather.status, 400);
  const body = (await weather.json()) as { error: { message: string } };
  assert.equal(
    body.error.message,
    'The `classifications` must be among the public ones: eew.forecast, telegram.earthquake.',
  );
  const badTest = await fetch(`${server.url}/v2/public/stream?test=maybe`);
  assert.equal(badTest.status, 400);
  assert.equal(
    ((await badTest.json()) as { error: { message: string } }).error.message,
    'The `test` is `no` or `including`.',
  );
  const unknownAfter = await fetch(`${server.url}/v2/public/stream?after=${'0'.repeat(64)}`);
  assert.equal(unknownAfter.status, 400);

  const socket = new PublicSocket(wsUrl(server, 'classifications=telegram.weather'));
  await waitFor(() => socket.closed, { message: 'refused socket' });
  assert.equal(socket.closed!.code, 4400);
  assert.equal(
    socket.closed!.reason,
    'The `classifications` must be among the public ones: eew.forecast, telegram.earthquake.',
  );
  const repeated = new PublicSocket(wsUrl(server, 'formatMode=json&formatMode=raw'));
  await waitFor(() => repeated.closed, { message: 'refused socket' });
  assert.equal(repeated.closed!.code, 4400);
  assert.equal(repeated.closed!.reason, 'Unexpected data of search query `formatMode`.');
  await waitFor(async () => (await gauge(server, 'websocket')) === 0, { message: 'nothing held' });
});

test('Last-Event-ID and after resume after a telegram: every one stored since, then the live stream, each once', async () => {
  const first = await ingestEew();
  const missed = [await ingestEew(), await ingestEew()];
  const stream = new SseClient(`${server.url}/v2/public/stream?classifications=eew.forecast`, {
    'last-event-id': first,
  });
  const socket = new PublicSocket(wsUrl(server, `classifications=eew.forecast&after=${first}`));
  assert.equal(await stream.opened, 200);
  await waitFor(() => stream.data().length === 2 && socket.of('data').length === 2, { message: 'catch-up' });
  const live = await ingestEew();
  await waitFor(() => stream.data().length === 3 && socket.of('data').length === 3, { message: 'live' });
  assert.deepEqual(
    stream.data().map((d) => d.id),
    [...missed, live],
  );
  assert.deepEqual(
    socket.of('data').map((d) => d.id),
    [...missed, live],
  );
  stream.abort();
  socket.ws.close();
  await waitFor(async () => (await gauge(server, 'stream')) + (await gauge(server, 'websocket')) === 0, {
    message: 'released',
  });
});

test('anonymous connections are capped per address and in total, and new ones per address and minute', async () => {
  const capped = await startTestServer({
    config: {
      publicClassifications: ['telegram.earthquake'],
      publicMaxPerAddress: 2,
      publicMaxConnections: 3,
      publicConnectsPerMinute: 4,
    },
  });
  try {
    const url = `${capped.url}/v2/public/stream`;
    const a = [await openGet(url), await openGet(url)];
    for (const c of a) assert.equal(c.status, 200);
    const third = await openGet(url);
    assert.equal(third.status, 429, 'the address holds its cap');
    assert.equal(third.headers['retry-after'], '5');
    const other = new PublicSocket(wsUrl(capped, ''), '127.0.0.2');
    await waitFor(() => other.of('start').length === 1, { message: 'a socket from another address' });
    const over = new PublicSocket(wsUrl(capped, ''), '127.0.0.3');
    await waitFor(() => over.closed, { message: 'refused over the total' });
    assert.equal(over.closed!.code, 4409);
    const overStream = await openGet(url);
    assert.equal(overStream.status, 503, 'the process holds its total');
    assert.equal(await refused(capped, 'address'), 1);
    assert.equal(await refused(capped, 'total'), 2);

    // The address's two slots free again; its rate (4 a minute, 2 used) admits two more, then 429.
    for (const c of a) c.close();
    await waitFor(async () => (await gauge(capped, 'stream')) === 0, { message: 'released' });
    for (let i = 0; i < 2; i++) {
      const c = await openGet(url);
      assert.equal(c.status, 200);
      c.close();
      await waitFor(async () => (await gauge(capped, 'stream')) === 0, { message: 'released' });
    }
    const fast = await openGet(url);
    assert.equal(fast.status, 429);
    const wait = Number(fast.headers['retry-after']);
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    assert.equal(await refused(capped, 'rate'), 1);
    // A telegram still reaches the socket that was admitted.
    const id = await ingestQuake(capped);
    await waitFor(() => other.of('data').length === 1, { message: 'delivery to the admitted socket' });
    assert.equal(other.of('data')[0]!.id, id);
    other.ws.close();
    const metrics = await capped.ctx.metrics.registry.metrics();
    assert.match(metrics, /namazu_public_refused_total\{reason="rate"\} 1/);
    assert.match(metrics, /namazu_public_open_connections/);
  } finally {
    await capped.close();
  }
});

test('an IPv6 client is capped as its /64 network, whichever of its addresses it connects from', async () => {
  const capped = await startTestServer({
    config: { publicClassifications: ['telegram.earthquake'], publicMaxPerAddress: 1, trustProxy: 1 },
  });
  const from = (address: string) => ({ 'x-forwarded-for': address });
  try {
    const url = `${capped.url}/v2/public/stream`;
    const first = await openGet(url, from('2001:db8:1:2::1'));
    assert.equal(first.status, 200);
    const sameNetwork = await openGet(url, from('2001:db8:1:2:ffff:ffff:ffff:fffe'));
    assert.equal(sameNetwork.status, 429, 'another address of the same /64 holds its cap');
    const otherNetwork = await openGet(url, from('2001:db8:1:3::1'));
    assert.equal(otherNetwork.status, 200, 'the next /64 is another client');
    const otherIpv4 = await openGet(url, from('192.0.2.1'));
    assert.equal(otherIpv4.status, 200);
    for (const c of [first, otherNetwork, otherIpv4]) c.close();
  } finally {
    await capped.close();
  }
});

test('the OpenAPI document describes the public stream, without credentials', async () => {
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
    paths: Record<
      string,
      { get?: { security?: unknown[]; tags?: string[]; parameters?: { name: string }[] } }
    >;
  };
  const op = doc.paths['/v2/public/stream']?.get;
  assert.ok(op, 'GET /v2/public/stream is in the document');
  assert.deepEqual(op.security, []);
  assert.deepEqual(op.tags, ['Real-time']);
  assert.deepEqual(op.parameters!.map((p) => p.name).sort(), [
    'after',
    'areas',
    'classifications',
    'formatMode',
    'minIntensity',
    'test',
    'types',
  ]);
});

test('NAMAZU_PUBLIC_CLASSIFICATIONS is empty by default, and an unknown name stops the start naming the setting', () => {
  assert.deepEqual(loadConfig({}).publicClassifications, []);
  assert.deepEqual(
    loadConfig({ NAMAZU_PUBLIC_CLASSIFICATIONS: 'telegram.earthquake, telegram.volcano' })
      .publicClassifications,
    ['telegram.earthquake', 'telegram.volcano'],
  );
  assert.throws(
    () => loadConfig({ NAMAZU_PUBLIC_CLASSIFICATIONS: 'telegram.earthquake,eew.everything' }),
    (err: Error) =>
      err instanceof ConfigError &&
      err.message.startsWith('NAMAZU_PUBLIC_CLASSIFICATIONS must be one of eew.forecast,') &&
      err.message.endsWith('got "eew.everything"'),
  );
  assert.throws(() => loadConfig({ NAMAZU_PUBLIC_MAX_PER_ADDRESS: '0' }), /between 1 and 1000000/);
  const c = loadConfig({});
  assert.deepEqual(
    [c.publicMaxConnections, c.publicMaxPerAddress, c.publicConnectsPerMinute],
    [10_000, 20, 60],
  );
});

test('a client that goes away while it is being admitted leaves no slot held', async () => {
  const one = await startTestServer({
    config: { publicClassifications: ['telegram.earthquake'], publicMaxPerAddress: 1 },
  });
  try {
    const { port } = new URL(one.url);
    for (let i = 0; i < 5; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      // The request, then the end of the connection at once: it ends while the rate is counted.
      socket.end('GET /v2/public/stream HTTP/1.1\r\nHost: x\r\n\r\n');
      socket.destroy();
    }
    // Once the five are done with, the address's one slot is free (a slot held for a client that
    // has gone would refuse every try with 429).
    const next = await waitFor(
      async () => {
        const tried = await openGet(`${one.url}/v2/public/stream`);
        if (tried.status === 200) return tried;
        assert.equal(tried.status, 429);
        tried.close();
        return null;
      },
      { message: 'the address admitted again' },
    );
    next.close();
    await waitFor(async () => (await gauge(one, 'stream')) === 0, { message: 'every slot released' });
  } finally {
    await one.close();
  }
});

test('with no public classification the stream answers 404 and the public WebSocket path is unknown', async () => {
  const off = await startTestServer();
  try {
    const res = await fetch(`${off.url}/v2/public/stream`);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, 404);
    const socket = new PublicSocket(wsUrl(off, ''));
    await waitFor(() => socket.closed, { message: 'refused upgrade' });
    assert.equal(socket.status, 404);
  } finally {
    await off.close();
  }
});
