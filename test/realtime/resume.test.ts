/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are inspected loosely */
/**
 * Resume after a drop (POST /v2/socket `after`) and the stream over server-sent events
 * (GET /v2/stream): connections killed at random points of a burst of telegrams reconnect from the
 * last id they handled, and every telegram arrives exactly once, in order.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { fixture } from '../support/fixtures.ts';
import { SseClient } from '../support/sse.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));
const SCOPES = ['socket.start', 'socket.list', 'socket.close', 'eew.get.forecast', 'telegram.get.earthquake'];

let server: TestServer;
let key: string;
let accountId: number;
before(async () => {
  server = await startTestServer({ config: { pingIntervalMs: 1000 } });
  const { account } = await server.createAccount({ contracts: ['eew.forecast', 'websocket.plus5'] });
  accountId = account.id;
  key = await server.createApiKey(account.id, SCOPES);
});
after(() => server.close());

const auth = () => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` });
let variant = 0;

/** Stores one distinct early warning; its id. */
async function ingestOne(): Promise<string> {
  const raw = Buffer.concat([EEW, Buffer.from(`\n<!-- resume ${++variant} ${Date.now()} -->\n`)]);
  const out = await ingestTelegram(
    { db: server.ctx.db, bus: server.ctx.bus, telegrams: server.ctx.telegrams },
    raw,
    {
      fileName: '77_01_03_240613_VXSE45.xml',
      receivedTime: Date.now(),
    },
  );
  assert.ok(out.ok);
  return out.stored.id;
}

async function startSocket(body: Record<string, unknown>) {
  const res = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: auth(),
    body: JSON.stringify({ classifications: ['eew.forecast'], ...body }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

async function sessions(): Promise<any[]> {
  const res = await fetch(`${server.url}/v2/socket?limit=100`, { headers: auth() });
  return ((await res.json()) as { items: any[] }).items;
}

/** A burst of `count` telegrams, one at a time with a turn of the event loop between; their ids. */
function burst(count: number): { ids: string[]; done: Promise<void> } {
  const ids: string[] = [];
  const done = (async () => {
    for (let i = 0; i < count; i++) {
      ids.push(await ingestOne());
      await new Promise((r) => setTimeout(r, Math.random() * 15));
    }
  })();
  return { ids, done };
}

/** One socket: the ids of the `data` messages it receives until `stop` says to drop it. */
async function socketUntil(url: string, received: string[], stop: (sinceOpen: number) => boolean) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.on('error', () => {});
  let count = 0;
  await new Promise<void>((resolve, reject) => {
    // Nothing for this long while telegrams are missing: a gap (the test fails instead of hanging).
    let silence = setTimeout(
      () => reject(new Error(`no telegram for 15 s after ${received.length}`)),
      15_000,
    );
    // Only a telegram counts as one: pings every second would otherwise hide a gap for ever.
    ws.on('message', (m) => {
      if ((JSON.parse(m.toString()) as { type: string }).type !== 'data') return;
      clearTimeout(silence);
      silence = setTimeout(() => reject(new Error(`no telegram for 15 s after ${received.length}`)), 15_000);
    });
    ws.on('close', () => clearTimeout(silence));
    ws.on('message', (m) => {
      const msg = JSON.parse(m.toString()) as { type: string; id?: string; pingId?: string };
      if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
      if (msg.type === 'data') {
        received.push(msg.id!);
        count++;
      }
      if (stop(count)) {
        ws.terminate();
        resolve();
      }
    });
    ws.on('close', () => resolve());
  });
}

test('a socket dropped at random points of a burst resumes with `after`: every telegram once, in order', async () => {
  const total = 60;
  const received: string[] = [];
  // The newest telegram before the burst: a client dropped before its first telegram resumes
  // after this one, as a client that read the list first would.
  const origin = await ingestOne();
  // The first socket too: its ticket is redeemed after the burst has begun.
  const first = await startSocket({ after: origin });
  assert.equal(first.status, 200);
  const sent = burst(total);
  let url: string = first.json.websocket.url;
  let drops = 0;
  while (received.length < total) {
    // Dropped after 0–6 telegrams: sometimes before the catch-up has sent anything.
    const limit = Math.floor(Math.random() * 7);
    const everything = () => received.length >= total;
    await socketUntil(url, received, (n) => n >= limit || everything());
    if (everything()) break;
    drops++;
    const next = await startSocket({ after: received.at(-1) ?? origin });
    assert.equal(next.status, 200, JSON.stringify(next.json));
    url = next.json.websocket.url;
  }
  await sent.done;
  assert.ok(drops >= 5, `dropped ${drops} times`);
  assert.deepEqual(received, sent.ids, 'every telegram once, in order');
});

test('an SSE stream dropped at random points resumes with Last-Event-ID or ?after=: every telegram once, in order', async () => {
  const total = 60;
  const received: string[] = [];
  const base = `${server.url}/v2/stream?classifications=eew.forecast`;
  // As for the socket: a stream dropped before its first telegram resumes after this one.
  let lastId = await ingestOne();
  let client = new SseClient(`${base}&after=${lastId}`, auth());
  assert.equal(await client.opened, 200);
  const sent = burst(total);
  let drops = 0;
  while (received.length < total) {
    if (drops > 0) {
      // Alternately as a browser's EventSource reconnects (Last-Event-ID) and with ?after=.
      const byHeader = drops % 2 === 0;
      const url = byHeader ? base : `${base}&after=${lastId}`;
      const headers: Record<string, string> = { ...auth() };
      if (byHeader) headers['last-event-id'] = lastId;
      client = new SseClient(url, headers);
      assert.equal(await client.opened, 200);
    }
    const limit = Math.floor(Math.random() * 7);
    await waitFor(() => client.data().length >= limit || received.length + client.data().length >= total, {
      timeout: 10_000,
    });
    client.abort();
    await client.ended;
    for (const e of client.events.filter((e) => e.event === 'data')) {
      const msg = JSON.parse(e.data) as { id: string };
      assert.equal(e.id, msg.id, 'the event id is the telegram id');
      received.push(msg.id);
    }
    lastId = received.at(-1) ?? lastId;
    drops++;
  }
  await sent.done;
  assert.deepEqual(received.slice(0, total), sent.ids, 'every telegram once, in order');
  assert.equal(received.length, total);
});

test('bad `after` values are refused with 400 naming the field, and open nothing', async () => {
  const id = await ingestOne();
  const before = (await sessions()).length;
  const cases: [unknown, string][] = [
    ['abc', 'The `after` is not a telegram id (96 lowercase hex characters).'],
    [42, 'The `after` is not a telegram id (96 lowercase hex characters).'],
    [
      'f'.repeat(96),
      'The `after` telegram is not stored (unknown, or deleted by retention); read the telegram list.',
    ],
  ];
  for (const [value, message] of cases) {
    const r = await startSocket({ after: value });
    assert.equal(r.status, 400);
    assert.deepEqual(r.json.error, { message, code: 400 });
  }
  const sse = new SseClient(`${server.url}/v2/stream?classifications=eew.forecast&after=xyz`, auth());
  assert.equal(await sse.opened, 400);
  assert.deepEqual((sse.body as any).error, { message: cases[0]![1], code: 400 });
  const header = new SseClient(`${server.url}/v2/stream?classifications=eew.forecast`, {
    ...auth(),
    'last-event-id': 'x'.repeat(96),
  });
  assert.equal(await header.opened, 400);
  assert.match((header.body as any).error.message, /^The `Last-Event-ID` is not a telegram id/);
  // Further back than the configured bound.
  const bound = server.ctx.config.resumeMaxTelegrams;
  server.ctx.config.resumeMaxTelegrams = 1;
  try {
    await ingestOne();
    await ingestOne();
    const r = await startSocket({ after: id });
    assert.equal(r.status, 400);
    assert.equal(
      r.json.error.message,
      'The `after` telegram is more than 1 telegrams back; read the telegram list.',
    );
  } finally {
    server.ctx.config.resumeMaxTelegrams = bound;
  }
  assert.equal((await sessions()).length, before, 'no session was started');
});

test("an EventSource's Last-Event-ID the server cannot resume from (not stored, too far back) resumes from as far back as it goes instead of a refusal the browser would never retry", async () => {
  const stream = (headers: Record<string, string>, query = '') =>
    new SseClient(`${server.url}/v2/stream?classifications=eew.forecast${query}`, { ...auth(), ...headers });
  const bound = server.ctx.config.resumeMaxTelegrams;
  // Each early warning is two serials (its XML and its conversion): three back is the newest alone.
  server.ctx.config.resumeMaxTelegrams = 3;
  try {
    const first = await ingestOne();
    await ingestOne();
    const newest = await ingestOne();
    for (const lastEventId of [first, 'e'.repeat(96)]) {
      const resumed = stream({ 'last-event-id': lastEventId });
      assert.equal(await resumed.opened, 200, lastEventId);
      await waitFor(() => resumed.data().length === 1, { message: 'the catch-up' });
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        resumed.data().map((m: any) => m.id),
        [newest],
        'what lies within the bound',
      );
      resumed.abort();
      await resumed.ended;
    }
    // Asked for by `after`, it is the client's own choice: refused, as documented.
    const asked = stream({}, `&after=${first}`);
    assert.equal(await asked.opened, 400);
    assert.match((asked.body as any).error.message, /more than 3 telegrams back/);
  } finally {
    server.ctx.config.resumeMaxTelegrams = bound;
  }
});

test('a stream gives its position as an id line without data, from its opening: a reconnect from it misses nothing and repeats nothing', async () => {
  await ingestOne();
  const newestId = async () =>
    (await server.ctx.db.query<{ id: string }>('SELECT id FROM telegrams ORDER BY serial DESC LIMIT 1'))[0]!
      .id;
  const url = `${server.url}/v2/stream?classifications=eew.forecast`;
  const first = new SseClient(url, auth());
  assert.equal(await first.opened, 200);
  const at = await newestId();
  await waitFor(() => first.lastEventId === at, { message: 'the position at the opening' });
  assert.deepEqual(first.data(), [], 'no event for it');
  first.abort();
  await first.ended;

  const missed = await ingestOne();
  const again = new SseClient(url, { ...auth(), 'last-event-id': at });
  assert.equal(await again.opened, 200);
  await waitFor(() => again.data().length === 1, { message: 'the catch-up' });
  const live = await ingestOne();
  await waitFor(() => again.data().length === 2, { message: 'live' });
  // A keep-alive (every second here) then gives the newest as its position.
  await waitFor(async () => again.lastEventId === (await newestId()), { message: 'the position moves on' });
  assert.deepEqual(
    again.data().map((m: any) => m.id),
    [missed, live],
  );
  again.abort();
  await again.ended;
});

test('GET /v2/stream: data events like the socket, a keep-alive comment, listed, closed by DELETE', async () => {
  const client = new SseClient(`${server.url}/v2/stream?classifications=eew.forecast&key=${key}`);
  assert.equal(await client.opened, 200);
  const id = await ingestOne();
  await waitFor(() => client.data().length === 1);
  const event = client.events.find((e) => e.event === 'data')!;
  assert.equal(event.id, id);
  const msg = client.data<any>()[0];
  assert.equal(msg.type, 'data');
  assert.equal(msg.classification, 'eew.forecast');
  assert.equal(msg.head.type, 'VXSE45');
  await waitFor(() => client.comments.includes('keep-alive'), { timeout: 5000 });
  const listed = (await sessions()).find(
    (s) => s.status === 'open' && s.classifications.includes('eew.forecast'),
  );
  assert.ok(listed, 'listed as an open session');
  const del = await fetch(`${server.url}/v2/socket/${listed.id}`, { method: 'DELETE', headers: auth() });
  assert.equal(del.status, 204);
  await client.ended;
  const last = client.events.at(-1)!;
  assert.equal(last.event, 'error');
  assert.deepEqual(JSON.parse(last.data), {
    type: 'error',
    error: 'The WebSocket was closed by the account.',
    code: 4808,
    close: true,
  });
  await waitFor(async () => (await sessions()).find((s) => s.id === listed.id)?.status === 'closed');
  void accountId;
});
