/* eslint-disable @typescript-eslint/no-explicit-any -- messages are inspected loosely */
/**
 * GET /v2/stream and GET /v2/public/stream read by real EventSource clients (docs/realtime.md
 * "Server-sent events", "Public streams"): Chromium's own, from a page of another origin (an API
 * key as `?key=`), and the npm `eventsource` client (an Authorization header). Each parses the
 * events as documented, reconnects by itself with Last-Event-ID after a restart and receives every
 * telegram once; stops at a refusal, which is never an event stream, unless it passes by itself
 * (a slot, an address's share): then it is told to retry, and gets in.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { EventSource } from 'eventsource';
import { Agent, fetch as undiciFetch } from 'undici';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { launchChromium } from '../support/chromium.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';
import { SseClient } from '../support/sse.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { engineFree } from '../support/engine.ts';

const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));
const QUAKE = readFileSync(fixture('rest', '32-35_06_05_240613_VXSE53.xml'));
const SCOPES = ['socket.start', 'socket.list', 'socket.close', 'eew.get.forecast', 'telegram.get.earthquake'];
const PUBLIC = ['eew.forecast', 'telegram.earthquake'];

let database: TestDatabase;
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** The page's origin: another port, so another origin than the server's. */
let pageOrigin: Server;
let key: string;

const serverConfig = (port = 0) => ({
  port,
  publicClassifications: PUBLIC as any,
  pingIntervalMs: 1000,
});

before(async () => {
  browser = await launchChromium();
  database = await createTestDatabase();
  server = await startTestServer({ database, config: serverConfig() });
  const { account } = await server.createAccount({ contracts: ['eew.forecast', 'telegram.earthquake'] });
  key = await server.createApiKey(account.id, SCOPES);
  pageOrigin = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>client</title><body></body></html>');
  });
  await new Promise<void>((resolve) => pageOrigin.listen(0, '127.0.0.1', resolve));
  context = await browser.newContext();
  page = await context.newPage();
  // Requests the server answered: on a busy machine a restart may outlast the browser's first
  // reconnection delay, and an attempt that found no server has only the headers the page set.
  page.on('response', (response) => {
    const r = response.request();
    const url = new URL(r.url());
    if (!url.pathname.startsWith('/v2/')) return;
    const request: (typeof seen)[number] = { url };
    seen.push(request);
    // The header the network stack adds is among allHeaders() alone.
    void r.allHeaders().then((h) => (request.lastEventId = h['last-event-id'] ?? null));
  });
  await page.goto(`http://127.0.0.1:${(pageOrigin.address() as AddressInfo).port}/`);
});

after(async () => {
  await browser?.close();
  pageOrigin?.close();
  await server?.close();
  await database?.drop();
});

let variant = 0;
/** Stores one distinct telegram on the running server; its id. */
async function ingest(xml: Buffer, fileName: string): Promise<string> {
  const raw = Buffer.concat([xml, Buffer.from(`\n<!-- eventsource ${++variant} ${Date.now()} -->\n`)]);
  const out = await ingestTelegram(server.ctx, raw, { fileName, receivedTime: Date.now() });
  assert.ok(out.ok);
  return out.stored.id;
}
const ingestEew = () => ingest(EEW, '77_01_03_240613_VXSE45.xml');
const ingestQuake = () => ingest(QUAKE, '32-35_06_05_240613_VXSE53.xml');

interface PageLog {
  opens: number;
  data: { id: string; data: string }[];
  /** The server's `error` events (with data) and the browser's own (without), with the state after. */
  errors: { data: string | null; readyState: number }[];
}

/** Opens an EventSource in the page; its index for `log` and `close`. */
async function open(url: string): Promise<number> {
  return page.evaluate((u) => {
    // The page's own EventSource (not the npm client this file imports under the same name).
    const w = globalThis as any;
    w.streams ??= [];
    const log = { opens: 0, data: [] as unknown[], errors: [] as unknown[] };
    const es = new w.EventSource(u);
    es.addEventListener('open', () => log.opens++);
    es.addEventListener('data', (e: MessageEvent) => log.data.push({ id: e.lastEventId, data: e.data }));
    es.addEventListener('error', (e: MessageEvent) =>
      log.errors.push({ data: e.data ?? null, readyState: es.readyState }),
    );
    w.streams.push({ es, log });
    return w.streams.length - 1;
  }, url);
}
const log = (n: number): Promise<PageLog> => page.evaluate((i) => (globalThis as any).streams[i].log, n);
const readyState = (n: number): Promise<number> =>
  page.evaluate((i) => (globalThis as any).streams[i].es.readyState, n);
const close = (n: number) => page.evaluate((i) => (globalThis as any).streams[i].es.close(), n);

/**
 * A GET on a connection of its own (fetch's pool may keep a spare connection open, which delays the
 * server's close): its status and headers once they arrive; the connection is dropped then.
 */
function headersOf(url: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, headers }, (res) => {
      resolve(res);
      req.destroy();
    }).on('error', reject);
  });
}

/**
 * The page's requests that the server answered (every stream it opened, and each reconnect), in the
 * order the answers came; `lastEventId` once their headers are known (they come later, and on a busy
 * machine not always in that order).
 */
const seen: { url: URL; lastEventId?: string | null }[] = [];
const requestsTo = (path: string) => seen.filter((r) => r.url.pathname === path);
const headersKnown = () =>
  waitFor(() => seen.every((r) => r.lastEventId !== undefined), { message: "the requests' headers" });

/** Waits until the page's stream `n` has at least `count` data events; its log. */
const dataCount = (n: number, count: number, timeout = 15_000) =>
  waitFor(
    async () => {
      const l = await log(n);
      return l.data.length >= count ? l : null;
    },
    { timeout, message: `${count} events on stream ${n}` },
  );

/** Stops the server and starts it again on the same port and database (as a restart of `namazu serve`). */
async function restart(): Promise<void> {
  const port = server.port;
  await server.close();
  server = await startTestServer({ database, config: serverConfig(port) });
}

test(
  'Chromium EventSource from another origin: events as documented, resumed after a restart with Last-Event-ID, each telegram once, filters kept',
  engineFree,
  async () => {
    const publicUrl = `${server.url}/v2/public/stream?classifications=eew.forecast`;
    const keyUrl = `${server.url}/v2/stream?classifications=eew.forecast,telegram.earthquake&types=VXSE45&key=${key}`;
    const pub = await open(publicUrl);
    const auth = await open(keyUrl);
    await waitFor(async () => (await log(pub)).opens === 1 && (await log(auth)).opens === 1, {
      message: 'both streams open',
    });

    // Filtered out by both: an earthquake report (not public; `types` on the other).
    const e1 = await ingestEew();
    await ingestQuake();
    const first = await dataCount(pub, 1);
    await dataCount(auth, 1);
    assert.equal(first.data[0]!.id, e1, 'the event id is the telegram id');
    assert.equal(JSON.parse(first.data[0]!.data).id, e1);
    assert.equal(JSON.parse(first.data[0]!.data).type, 'data');

    await restart();
    // The server said why, then the browser lost the connection and is reconnecting by itself.
    for (const n of [pub, auth]) {
      const { errors } = await log(n);
      assert.deepEqual(JSON.parse(errors[0]!.data!), {
        type: 'error',
        error: 'The server is restarting; reconnect.',
        code: 4503,
        close: true,
      });
    }
    // Committed before the browsers reconnect (in 3 s): the catch-up sends them.
    const e2 = await ingestEew();
    await ingestQuake();
    const e3 = await ingestEew();
    await dataCount(pub, 3);
    await dataCount(auth, 3);
    const e4 = await ingestEew();
    const pubLog = await dataCount(pub, 4);
    const authLog = await dataCount(auth, 4);
    // Nothing more comes (no duplicate from the catch-up and the live stream).
    await new Promise((r) => setTimeout(r, 300));
    for (const l of [pubLog, authLog]) {
      const ids = (await log(l === pubLog ? pub : auth)).data.map((d) => d.id);
      assert.deepEqual(ids, [e1, e2, e3, e4], 'every telegram once, in order');
      assert.equal(l.opens, 2, 'reconnected once');
    }
    await headersKnown();
    for (const path of ['/v2/public/stream', '/v2/stream']) {
      const requests = requestsTo(path);
      const reconnects = requests.filter((r) => r.lastEventId !== null);
      assert.ok(reconnects.length >= 1, `${path} reconnected`);
      for (const r of reconnects) {
        // e1's id, or the position a keep-alive gave after it (the earthquake report filtered out).
        assert.ok(r.lastEventId !== e2 && r.lastEventId !== e3, 'resumed from before the restart');
        assert.equal(r.url.search, requests[0]!.url.search, 'the query string is kept');
      }
    }
    await close(pub);
    await close(auth);
  },
);

test('a stream that received no event yet resumes from the position its keep-alive gave: nothing committed during a restart is missed', async () => {
  // Only early warnings, and none comes before the restart: an earthquake report moves the position.
  const url = `${server.url}/v2/stream?classifications=eew.forecast&key=${key}`;
  const quiet = await open(url);
  await waitFor(async () => (await log(quiet)).opens === 1, { message: 'open' });
  // Every stream's keep-alive (every second here) is written at one tick: a stream of another account
  // (this one's limit is one) tells when one after the report has carried its position (a busy
  // machine may delay it).
  const other = await server.createAccount({ contracts: ['eew.forecast'] });
  const watcher = new SseClient(url.replace(key, await server.createApiKey(other.account.id, SCOPES)));
  await waitFor(() => watcher.comments.includes('keep-alive'), { message: "the watcher's first keep-alive" });
  const earlier = watcher.lastEventId;
  await ingestQuake();
  // Its position (the report, or its conversion stored after it), in place of the one before.
  await waitFor(() => watcher.lastEventId !== earlier, { message: 'a keep-alive with the position' });
  watcher.abort();
  const before = requestsTo('/v2/stream').length;
  await restart();
  // Committed before the browser reconnects (in 3 s).
  const missed = await ingestEew();
  const l = await dataCount(quiet, 1);
  await headersKnown();
  const reconnect = requestsTo('/v2/stream').slice(before);
  assert.ok(reconnect.length >= 1 && reconnect[0]!.lastEventId !== null, 'reconnected with a Last-Event-ID');
  const live = await ingestEew();
  await dataCount(quiet, 2);
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(
    (await log(quiet)).data.map((d) => d.id),
    [missed, live],
    'the telegram of the restart once, then the live one',
  );
  assert.equal(l.data[0]!.id, missed);
  await close(quiet);
});

test('a stream of JSON conversions resumes from the id of the last one (its event id)', async () => {
  const quakes = await open(
    `${server.url}/v2/public/stream?classifications=telegram.earthquake&formatMode=json`,
  );
  await waitFor(async () => (await log(quakes)).opens === 1, { message: 'open' });
  const q1 = await ingestQuake();
  const first = await dataCount(quakes, 1);
  const message = JSON.parse(first.data[0]!.data);
  assert.equal(message.format, 'json');
  assert.equal(message.originalId, q1);
  assert.equal(first.data[0]!.id, message.id, 'the event id is the id of the message');
  await restart();
  const q2 = await ingestQuake();
  const q3 = await ingestQuake();
  const after = await dataCount(quakes, 3);
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(
    (await log(quakes)).data.map((d) => JSON.parse(d.data).originalId),
    [q1, q2, q3],
  );
  assert.equal(after.opens, 2);
  await close(quakes);
});

/** Waits until the page's stream `n` gave up (CLOSED after an error). */
async function gaveUp(n: number): Promise<void> {
  await waitFor(async () => (await readyState(n)) === 2, { message: `stream ${n} closed`, timeout: 10_000 });
}

test(
  'refusals are not event streams: the EventSource stops at once and does not reconnect',
  engineFree,
  async () => {
    const { account: bare } = await server.createAccount();
    const noContract = await server.createApiKey(bare.id, SCOPES);
    const noScope = await server.createApiKey(
      (await server.createAccount({ contracts: ['eew.forecast'] })).account.id,
      ['socket.start'],
    );
    const stream = `${server.url}/v2/stream?classifications=eew.forecast`;
    const cases: [string, number][] = [
      [`${stream}&key=AKe.not-a-key`, 401],
      [`${stream}&key=${noContract}`, 402],
      [`${stream}&key=${noScope}`, 403],
      [`${stream}&key=${key}&test=maybe`, 400],
      [`${stream}&key=${key}&after=${'f'.repeat(96)}`, 400],
      [`${server.url}/v2/public/stream?classifications=telegram.weather`, 400],
    ];
    for (const [url, status] of cases) {
      const res = await headersOf(url, { origin: 'https://page.example', accept: 'text/event-stream' });
      assert.equal(res.statusCode, status, url);
      assert.match(res.headers['content-type'] ?? '', /^application\/json/, url);
      assert.equal(res.headers['access-control-allow-origin'], '*');
    }
    const before = seen.length;
    const opened = await Promise.all(cases.map(([url]) => open(url)));
    for (const n of opened) await gaveUp(n);
    // Longer than a browser's reconnection time (3 s): nothing was tried again.
    await new Promise((r) => setTimeout(r, 3500));
    assert.equal(seen.length - before, cases.length, 'one request each');
    for (const n of opened) {
      const l = await log(n);
      assert.deepEqual([l.opens, l.data.length, l.errors.length], [0, 0, 1]);
      assert.equal(l.errors[0]!.data, null, "the browser's own error");
    }
  },
);

test(
  'a refusal that passes (the connection limit full) tells EventSource to retry, and it connects once a slot is free',
  engineFree,
  async () => {
    const { account } = await server.createAccount({ contracts: ['eew.forecast'] });
    const oneSlot = await server.createApiKey(account.id, SCOPES);
    const url = `${server.url}/v2/stream?classifications=eew.forecast&key=${oneSlot}`;
    const first = await open(url);
    await waitFor(async () => (await log(first)).opens === 1, { message: 'first open' });
    const plain = await headersOf(url, { origin: 'https://page.example' });
    assert.equal(plain.statusCode, 409, 'a client that reads no event stream is answered as before');
    assert.match(plain.headers['content-type'] ?? '', /^application\/json/);

    const second = await open(url);
    // The refusal is a short stream (an `open`, the server's `error` event, its end), then the
    // browser's own error as it waits to try again.
    await waitFor(async () => (await log(second)).errors.length === 2, { message: 'refused' });
    const [refused, ended] = (await log(second)).errors;
    assert.equal(JSON.parse(refused!.data!).error.code, 409, "the refusal as the server's error event");
    assert.deepEqual(ended, { data: null, readyState: 0 }, 'the browser is to try again');
    await close(first);
    // The refusal's short stream was the first `open`; the second is the stream itself.
    await waitFor(async () => (await log(second)).opens === 2, {
      timeout: 15_000,
      message: 'the second stream opens once the first left',
    });
    const id = await ingestEew();
    assert.equal((await dataCount(second, 1)).data[0]!.id, id);
    await close(second);
  },
);

test(
  'a stream answers text/event-stream with the CORS header a page of another origin needs',
  engineFree,
  async () => {
    for (const url of [
      `${server.url}/v2/public/stream?classifications=eew.forecast`,
      `${server.url}/v2/stream?classifications=eew.forecast&key=${key}`,
    ]) {
      const res = await headersOf(url, {
        origin: 'https://page.example',
        accept: 'text/event-stream',
        'cache-control': 'no-cache',
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.equal(res.headers['cache-control'], 'no-store');
    }
  },
);

/**
 * The npm `eventsource` client in this process: its events, its errors (the server's `error` events
 * with data, its own with an HTTP status or none), and the headers of each request it made. Its
 * requests go through an agent of its own, closed with it: no spare connection outlives the test.
 */
class NodeStream {
  readonly data: { id: string; data: string }[] = [];
  readonly errors: { data: string | null; code: number | null }[] = [];
  readonly requests: { url: string; lastEventId: string | null }[] = [];
  opens = 0;
  readonly es: EventSource;
  private readonly agent = new Agent();

  constructor(url: string, headers: Record<string, string> = {}) {
    this.es = new EventSource(url, {
      fetch: (input, init) => {
        const sent: Record<string, string> = Object.fromEntries(new Headers(init.headers));
        this.requests.push({ url: String(input), lastEventId: sent['last-event-id'] ?? null });
        Object.assign(sent, headers);
        return undiciFetch(String(input), {
          ...(init as object),
          headers: sent,
          dispatcher: this.agent,
        }) as unknown as Promise<Response>;
      },
    });
    this.es.addEventListener('open', () => this.opens++);
    this.es.addEventListener('data', (e) => this.data.push({ id: e.lastEventId, data: e.data }));
    this.es.addEventListener('error', (e) =>
      this.errors.push({
        data: (e as unknown as MessageEvent).data ?? null,
        code: (e as unknown as { code?: number }).code ?? null,
      }),
    );
  }

  async close(): Promise<void> {
    this.es.close();
    await this.agent.destroy();
  }
}

test('the npm eventsource client: Authorization header, resumed after a restart with Last-Event-ID, each telegram once', async () => {
  const basic = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
  const auth = new NodeStream(`${server.url}/v2/stream?classifications=eew.forecast`, basic);
  const pub = new NodeStream(`${server.url}/v2/public/stream?classifications=eew.forecast&types=VXSE45`);
  await waitFor(() => auth.opens === 1 && pub.opens === 1, { message: 'both open' });
  const e1 = await ingestEew();
  await ingestQuake();
  await waitFor(() => auth.data.length === 1 && pub.data.length === 1, { message: 'first events' });
  assert.equal(auth.data[0]!.id, e1);
  assert.equal(JSON.parse(auth.data[0]!.data).id, e1);
  await restart();
  const e2 = await ingestEew();
  const e3 = await ingestEew();
  await waitFor(() => auth.data.length >= 3 && pub.data.length >= 3, {
    timeout: 15_000,
    message: 'caught up',
  });
  const e4 = await ingestEew();
  await waitFor(() => auth.data.length >= 4 && pub.data.length >= 4, { message: 'live again' });
  await new Promise((r) => setTimeout(r, 300));
  for (const stream of [auth, pub]) {
    assert.deepEqual(
      stream.data.map((d) => d.id),
      [e1, e2, e3, e4],
      'every telegram once, in order',
    );
    assert.equal(stream.opens, 2);
    assert.deepEqual(JSON.parse(stream.errors[0]!.data!).code, 4503, "the server's error event");
    const reconnects = stream.requests.slice(1);
    assert.ok(reconnects.length >= 1);
    for (const r of reconnects) {
      assert.equal(r.lastEventId, e1);
      assert.equal(r.url, stream.requests[0]!.url);
    }
  }
  await auth.close();
  await pub.close();
});

test('the npm eventsource client stops at a refusal, with its status', engineFree, async () => {
  const cases: [NodeStream, number][] = [
    [
      new NodeStream(`${server.url}/v2/stream?classifications=eew.forecast`, {
        authorization: 'Bearer nope',
      }),
      401,
    ],
    [new NodeStream(`${server.url}/v2/stream?classifications=eew.forecast&key=${key}&test=maybe`), 400],
    [new NodeStream(`${server.url}/v2/public/stream?classifications=telegram.weather`), 400],
  ];
  for (const [stream] of cases)
    await waitFor(() => stream.es.readyState === EventSource.CLOSED, { message: 'closed' });
  await new Promise((r) => setTimeout(r, 3500));
  for (const [stream, status] of cases) {
    assert.deepEqual(stream.errors, [{ data: null, code: status }]);
    assert.equal(stream.requests.length, 1, 'not tried again');
    await stream.close();
  }
});

test(
  "a quiet stream outlives the server's idle time-out (NAMAZU_IDLE_TIMEOUT_MS below the 15 s keep-alive)",
  engineFree,
  async () => {
    const quick = await startTestServer({
      config: { publicClassifications: PUBLIC as any, idleTimeoutMs: 2000 },
    });
    const stream = new NodeStream(`${quick.url}/v2/public/stream?classifications=eew.forecast`);
    try {
      await waitFor(() => stream.opens === 1, { message: 'open' });
      // Twice the idle time-out without a telegram: the keep-alive comments keep the stream open.
      await new Promise((r) => setTimeout(r, 4500));
      assert.deepEqual(stream.errors, [], 'not dropped');
      assert.equal(stream.requests.length, 1, 'never reconnected');
    } finally {
      await stream.close();
      await quick.close();
    }
  },
);

test(
  'over the per-address cap of the public stream the npm client is told to retry after Retry-After, and gets in once the address is under it',
  engineFree,
  async () => {
    const capped = await startTestServer({
      config: { publicClassifications: PUBLIC as any, publicMaxPerAddress: 1 },
    });
    const url = `${capped.url}/v2/public/stream?classifications=eew.forecast`;
    const held = new NodeStream(url);
    try {
      await waitFor(() => held.opens === 1, { message: 'first open' });
      const answer = await headersOf(url, {});
      assert.equal(answer.statusCode, 429, 'without Accept: text/event-stream, the ordinary refusal');
      assert.equal(answer.headers['retry-after'], '5');
      assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
      const waiting = new NodeStream(url);
      await waitFor(() => waiting.errors.length > 0, { message: 'refused' });
      const refusedAt = Date.now();
      assert.equal(JSON.parse(waiting.errors[0]!.data!).error.code, 429);
      await held.close();
      await waitFor(() => waiting.requests.length === 2, { timeout: 15_000, message: 'tried again' });
      // `retry:` of one to two times the 5 s of Retry-After: the crowd comes back spread out.
      assert.ok(Date.now() - refusedAt >= 4000, 'not before Retry-After');
      assert.notEqual(waiting.es.readyState, EventSource.CLOSED, 'not given up');
      await waitFor(() => waiting.opens === 2, { message: 'in' });
      await waiting.close();
    } finally {
      await held.close();
      await capped.close();
    }
  },
);
