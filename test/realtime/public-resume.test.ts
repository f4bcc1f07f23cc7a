/* eslint-disable @typescript-eslint/no-explicit-any -- messages are inspected loosely */
/**
 * Resume on the public streams (docs/realtime.md "Public streams", "Resume"): an anonymous client
 * catches up on at most NAMAZU_PUBLIC_RESUME_MAX_TELEGRAMS stored telegrams, whatever id it sends,
 * while one that dropped for a moment still receives every telegram once; a refused `after` tells
 * it what it can do; and the position a quiet public stream is given names no telegram it may not
 * read.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { loadConfig } from '../../src/config.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { fixture } from '../support/fixtures.ts';
import { SseClient } from '../support/sse.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));
const QUAKE = readFileSync(fixture('rest', '32-35_06_05_240613_VXSE53.xml'));
/** The public bound of these tests, in serials (an early warning and its conversion are two). */
const PUBLIC_BOUND = 6;

let server: TestServer;
before(async () => {
  server = await startTestServer({
    config: {
      publicClassifications: ['eew.forecast'],
      publicResumeMaxTelegrams: PUBLIC_BOUND,
      pingIntervalMs: 500,
    },
  });
});
after(() => server.close());

let variant = 0;
async function ingest(xml: Buffer, fileName: string): Promise<string> {
  const raw = Buffer.concat([xml, Buffer.from(`\n<!-- public resume ${++variant} ${Date.now()} -->\n`)]);
  const out = await ingestTelegram(server.ctx, raw, { fileName, receivedTime: Date.now() });
  assert.ok(out.ok);
  return out.stored.id;
}
const ingestEew = () => ingest(EEW, '77_01_03_240613_VXSE45.xml');
const ingestQuake = () => ingest(QUAKE, '32-35_06_05_240613_VXSE53.xml');
const serialOf = (id: string) => server.ctx.telegrams.serialOf(id)!;

const streamUrl = (query = '') => `${server.url}/v2/public/stream?classifications=eew.forecast${query}`;

/** A `ws` client of the public WebSocket: its messages and how it closed. */
function publicSocket(query: string) {
  const messages: any[] = [];
  const state = { closed: null as { code: number; reason: string } | null };
  const ws = new WebSocket(
    `${server.url.replace('http', 'ws')}/v2/public/websocket?${query}`,
    ['service.v2'],
    {
      perMessageDeflate: false,
    },
  );
  ws.on('error', () => {});
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    messages.push(msg);
    if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
  });
  ws.on('close', (code, reason) => (state.closed = { code, reason: String(reason) }));
  return { ws, messages, state, data: () => messages.filter((m) => m.type === 'data').map((m) => m.id) };
}

async function openStreams(): Promise<number> {
  const m = await server.ctx.metrics.publicConnections.get();
  return m.values.reduce((sum, v) => sum + v.value, 0);
}

test('NAMAZU_PUBLIC_RESUME_MAX_TELEGRAMS bounds a public catch-up: 1000 by default, 0 to 1,000,000', () => {
  assert.equal(loadConfig({}).publicResumeMaxTelegrams, 1000);
  assert.equal(loadConfig({ NAMAZU_PUBLIC_RESUME_MAX_TELEGRAMS: '0' }).publicResumeMaxTelegrams, 0);
  assert.throws(
    () => loadConfig({ NAMAZU_PUBLIC_RESUME_MAX_TELEGRAMS: '-1' }),
    /NAMAZU_PUBLIC_RESUME_MAX_TELEGRAMS/,
  );
});

test('an unknown or too old Last-Event-ID catches a public stream up on the public bound alone, then live, each telegram once', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push(await ingestEew());
  for (const lastEventId of ['f'.repeat(96), ids[0]!]) {
    // What the bound admits: the early warnings within PUBLIC_BOUND serials of the newest.
    const newest = server.ctx.telegrams.newestSerial;
    const within = ids.filter((id) => serialOf(id) > newest - PUBLIC_BOUND);
    assert.ok(within.length >= 1 && within.length < ids.length - 1, 'the bound cuts the burst');
    const stream = new SseClient(streamUrl(), { 'last-event-id': lastEventId });
    assert.equal(await stream.opened, 200, lastEventId);
    await waitFor(() => stream.data().length >= within.length, { message: 'the catch-up' });
    const live = await ingestEew();
    await waitFor(() => stream.data().some((d) => d.id === live), { message: 'the live telegram' });
    assert.deepEqual(
      stream.data().map((d) => d.id),
      [...within, live],
      lastEventId,
    );
    stream.abort();
    ids.push(live);
  }
  await waitFor(async () => (await openStreams()) === 0, { message: 'released' });
});

test('a public `after` further back than the public bound, or not stored, is refused with what an anonymous client can do', async () => {
  const old = await ingestEew();
  for (let i = 0; i < 4; i++) await ingestEew();
  const tooOld = `The \`after\` telegram is more than ${PUBLIC_BOUND} telegrams back; connect without it to follow the live stream.`;
  const unknown =
    'The `after` telegram is not stored (unknown, or deleted by retention); connect without it to follow the live stream.';

  for (const [id, message] of [
    [old, tooOld],
    ['e'.repeat(96), unknown],
  ] as const) {
    const res = await fetch(streamUrl(`&after=${id}`));
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as any).error.message, message);

    const socket = publicSocket(`classifications=eew.forecast&after=${id}`);
    await waitFor(() => socket.state.closed, { message: 'the refused socket' });
    assert.deepEqual(socket.state.closed, { code: 4400, reason: message });
  }

  // The authenticated stream keeps its own message.
  const { account } = await server.createAccount({ contracts: ['eew.forecast'] });
  const key = await server.createApiKey(account.id, ['socket.start', 'eew.get.forecast']);
  const own = await fetch(
    `${server.url}/v2/stream?classifications=eew.forecast&after=${'e'.repeat(96)}&key=${key}`,
  );
  assert.equal(own.status, 400);
  assert.equal(
    ((await own.json()) as any).error.message,
    'The `after` telegram is not stored (unknown, or deleted by retention); read the telegram list.',
  );
});

test('a public socket resuming within the public bound receives every telegram after its `after` once, then live', async () => {
  const first = await ingestEew();
  const missed = [await ingestEew(), await ingestEew()];
  const socket = publicSocket(`classifications=eew.forecast&after=${first}`);
  await waitFor(() => socket.data().length === 2, { message: 'the catch-up' });
  const live = await ingestEew();
  await waitFor(() => socket.data().length === 3, { message: 'live' });
  assert.deepEqual(socket.data(), [...missed, live]);
  socket.ws.close();
  await waitFor(async () => (await openStreams()) === 0, { message: 'released' });
});

test('the position of a quiet public stream names the newest public telegram, never one it may not read, and resumes from it with nothing missed or twice', async () => {
  const eew = await ingestEew();
  const stream = new SseClient(streamUrl());
  assert.equal(await stream.opened, 200);
  // Telegrams of a classification that is not public come after it.
  const hidden = [await ingestQuake(), await ingestQuake()];
  // Keep-alives (every half second here) come while the stream stays quiet.
  const seen = new Set<string>();
  const watch = setInterval(() => stream.lastEventId && seen.add(stream.lastEventId), 10);
  await waitFor(() => stream.comments.filter((c) => c === 'keep-alive').length >= 3, {
    message: 'keep-alives',
  });
  clearInterval(watch);
  if (stream.lastEventId) seen.add(stream.lastEventId);
  for (const id of hidden) assert.ok(!seen.has(id), 'a telegram that is not public was named');
  // The newest public telegram: the early warning (or its JSON conversion, stored right after it).
  const position = stream.lastEventId!;
  assert.ok(serialOf(position) >= serialOf(eew), 'the newest public telegram');
  assert.equal(server.ctx.telegrams.get(serialOf(position))?.classification, 'eew.forecast');
  assert.equal(stream.data().length, 0);

  // Dropped; an early warning comes meanwhile; it resumes from its position.
  stream.abort();
  const missed = await ingestEew();
  await ingestQuake();
  const resumed = new SseClient(streamUrl(), { 'last-event-id': stream.lastEventId! });
  assert.equal(await resumed.opened, 200);
  await waitFor(() => resumed.data().length >= 1, { message: 'the missed early warning' });
  const live = await ingestEew();
  await waitFor(() => resumed.data().some((d) => d.id === live), { message: 'live' });
  assert.deepEqual(
    resumed.data().map((d) => d.id),
    [missed, live],
  );
  resumed.abort();
  await waitFor(async () => (await openStreams()) === 0, { message: 'released' });
});
