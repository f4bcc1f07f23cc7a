/**
 * The upstream relay against a hostile or broken upstream (the stand-in of fake-upstream.ts).
 * Finding 6 of the second adversarial round (docs/security.md): a gzip bomb (1 GiB of zeros), a
 * list that never ends (hundreds of MB) and pages that never end: each answer is bounded like the
 * feed's, a catch-up reads at most MAX_PAGES_PER_CATCH_UP pages, and a telegram delivered live
 * meanwhile is still stored. Then a message that is JSON but not an object, sessions the upstream
 * ends as soon as they open, a list answer without `nextPooling`, a flood of small messages that
 * each decompress to a large body, a body that keeps failing and a position the upstream refuses:
 * none may stop the relay, lose its position, hold its catch-ups, make it hammer the upstream or
 * hold unbounded memory.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { loadPosition, savePosition } from '../../src/sources/positions.ts';
import { MAX_PAGES_PER_CATCH_UP, UpstreamRelay, type UpstreamOptions } from '../../src/sources/upstream.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { REAL } from './feed-server.ts';
import { listItem, startFakeUpstream, type FakeUpstream } from './fake-upstream.ts';
import { engineFree } from '../support/engine.ts';

const QUAKE = readFileSync(join(REAL, '20210216071046_0_VXSE53_270000.xml'));
const quakeXml = (n: string) => Buffer.concat([QUAKE, Buffer.from(`\n<!-- ${n} -->\n`)]);
const MiB = 1024 * 1024;

let server: TestServer;
let upstream: FakeUpstream;
let relay: UpstreamRelay | undefined;

before(async () => {
  server = await startTestServer({ listen: false });
});
after(() => server.close());
afterEach(async () => {
  await relay?.stop();
  relay = undefined;
  await upstream.close();
  await server.ctx.db.query('DELETE FROM telegrams');
  await server.ctx.db.query('DELETE FROM source_positions');
});

const storedXml = async () =>
  (await server.ctx.db.query<{ n: number }>(`SELECT count(*) AS n FROM telegrams WHERE format = 'xml'`))[0]!
    .n;
const rejections = async () =>
  (await server.ctx.metrics.sourceRejections.get()).values.reduce((n, v) => n + v.value, 0);

/**
 * Starts the relay on the fake upstream, reconnecting quickly; from a stored position `from` when
 * given, so that its first catch-up reads pages.
 */
async function startRelay(options: Partial<UpstreamOptions> = {}, from?: string): Promise<void> {
  if (from !== undefined)
    await savePosition(server.ctx.db, `upstream ${upstream.origin}`, { nextPooling: from });
  relay = new UpstreamRelay(server.ctx, {
    url: upstream.origin,
    credential: { apiKey: 'upstream-key' },
    classifications: ['telegram.earthquake'],
    connections: 1,
    timeoutMs: 5000,
    retryBaseMs: 100,
    retryMaxMs: 2000,
    ...options,
  });
  relay.start();
}

/** A `data` message of the upstream carrying `xml` (gzip, base64, as service.v2 sends XML). */
function liveMessage(id: string, xml: Buffer) {
  return {
    type: 'data',
    version: '2.0',
    id,
    classification: 'telegram.earthquake',
    passing: [],
    head: { type: 'VXSE53', author: 'JPOS', time: '2026-11-23T00:00:00Z', designation: null, test: false },
    xmlReport: {},
    format: 'xml',
    compression: 'gzip',
    encoding: 'base64',
    body: gzipSync(xml).toString('base64'),
  };
}

/** Peak growth of this process's RSS while `run` runs, in MiB. */
async function rssGrowth(run: () => Promise<void>): Promise<number> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    await run();
  } finally {
    clearInterval(sampler);
  }
  return (Math.max(peak, process.memoryUsage().rss) - before) / MiB;
}

test(
  'a 1 GiB gzip bomb as a body is abandoned at the size cap; the next telegram is stored',
  engineFree,
  async () => {
    upstream = await startFakeUpstream();
    // Concatenated gzip members decompress as one stream: 16 × 64 MiB of zeros in about 1 MB.
    const member = gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 16 }, () => member));
    let bombsServed = 0;
    upstream.list = (_req, res, url) => {
      const first = url.searchParams.get('cursorToken') === 'start';
      const items = first
        ? [listItem('bomb', `${upstream.origin}/v1/bomb`), listItem('fine', `${upstream.origin}/v1/fine`)]
        : [];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', items: items.reverse(), nextPooling: 'after' }));
    };
    upstream.other = (_req, res, url) => {
      if (url.pathname === '/v1/bomb') {
        bombsServed++;
        return res
          .writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' })
          .end(bomb);
      }
      res.writeHead(200, { 'content-type': 'application/xml' }).end(quakeXml('after the bomb'));
    };
    const rejectedBefore = await rejections();
    const growth = await rssGrowth(async () => {
      await startRelay({}, 'start');
      await waitFor(async () => (await storedXml()) === 1, {
        timeout: 20_000,
        message: 'the telegram after the bomb',
      });
    });
    assert.equal(bombsServed, 1);
    assert.equal((await rejections()) - rejectedBefore, 1, 'the bomb is refused and counted');
    assert.ok(growth < 64, `RSS grew ${growth.toFixed(1)} MiB`);
  },
);

test('a list answer that never ends is abandoned at its cap; live delivery goes on', engineFree, async () => {
  upstream = await startFakeUpstream();
  let listBytes = 0;
  upstream.list = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"status":"ok","items":[');
    const chunk = Buffer.alloc(MiB, 0x20);
    const push = () => {
      while (!res.destroyed && listBytes < 600 * MiB) {
        listBytes += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', push);
      }
      res.end();
    };
    push();
  };
  const growth = await rssGrowth(async () => {
    await startRelay({}, 'start');
    await waitFor(() => upstream.sockets > 0, { timeout: 10_000, message: 'the relay connected' });
    upstream.send(liveMessage('live-1', quakeXml('live during a huge list')));
    await waitFor(async () => (await storedXml()) === 1, { timeout: 20_000, message: 'the live telegram' });
  });
  assert.ok(listBytes < 64 * MiB, `the upstream wrote ${listBytes / MiB} MiB before the relay hung up`);
  assert.ok(growth < 64, `RSS grew ${growth.toFixed(1)} MiB`);
});

test(`pages that never end: one catch-up reads ${MAX_PAGES_PER_CATCH_UP} pages, then live delivery goes on`, async () => {
  upstream = await startFakeUpstream();
  let pages = 0;
  upstream.list = (_req, res) => {
    pages++;
    // Full pages of a classification the relay does not take: nothing to fetch, only paging.
    const items = Array.from({ length: 100 }, (_, i) =>
      listItem(`p${pages}-${i}`, `${upstream.origin}/v1/x`, 'telegram.volcano'),
    );
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'ok', items, nextPooling: `page-${pages}` }));
  };
  await startRelay({}, 'start');
  await waitFor(() => upstream.sockets > 0, { timeout: 10_000, message: 'the relay connected' });
  upstream.send(liveMessage('live-2', quakeXml('live during endless pages')));
  // The live telegram is queued behind the catch-up that `start` began: stored once it ended.
  await waitFor(async () => (await storedXml()) === 1, { timeout: 20_000, message: 'the live telegram' });
  assert.equal(pages, MAX_PAGES_PER_CATCH_UP);
  // The position moved with the pages read: the next catch-up resumes there.
  const [position] = await server.ctx.db.query<{ position: { nextPooling: string } }>(
    `SELECT position FROM source_positions WHERE source = $1`,
    [`upstream ${upstream.origin}`],
  );
  assert.equal(position!.position.nextPooling, `page-${MAX_PAGES_PER_CATCH_UP}`);
});

const socketStarts = () =>
  upstream.requests.filter((r) => r.method === 'POST' && r.path === '/v2/socket').length;

test('a message that is JSON null is ignored; the next telegram is relayed', engineFree, async () => {
  upstream = await startFakeUpstream();
  await startRelay();
  await waitFor(() => upstream.sockets > 0, { timeout: 10_000, message: 'the relay connected' });
  upstream.send(null);
  upstream.send({
    type: 'data',
    version: '2.0',
    id: 'after-null',
    classification: 'telegram.earthquake',
    head: { type: 'VXSE53', author: 'JPOS', time: '2026-11-23T00:00:00Z', designation: null, test: false },
    format: 'xml',
    compression: 'gzip',
    encoding: 'base64',
    body: gzipSync(QUAKE).toString('base64'),
  });
  await waitFor(async () => (await storedXml()) === 1, { timeout: 10_000, message: 'the telegram stored' });
  assert.equal(socketStarts(), 1, 'the connection was kept');
});

for (const code of [4503, 1000]) {
  test(
    `an upstream that ends every session as it opens (close ${code}) is not hammered: the wait grows`,
    engineFree,
    async () => {
      upstream = await startFakeUpstream();
      upstream.onSocket = (ws) => ws.close(code);
      await startRelay();
      await sleep(3000);
      // Growing waits (0.1, 0.2, 0.4, 0.8, 1.6 s, then 2 s, each with jitter down to half): a handful of
      // sessions in 3 s. A wait reset after each session would make one every 0.1 s.
      const starts = socketStarts();
      assert.ok(starts >= 2 && starts <= 10, `${starts} sessions started in 3 s`);
    },
  );
}

test('a list answer without nextPooling is a failure: no empty position is stored, no cursor "undefined" sent', async () => {
  upstream = await startFakeUpstream();
  let lists = 0;
  upstream.list = (_req, res) => {
    lists++;
    res.writeHead(200, { 'content-type': 'application/json' });
    // The first answer lacks nextPooling; the following ones are right.
    res.end(
      JSON.stringify(
        lists === 1 ? { status: 'ok', items: [] } : { status: 'ok', items: [], nextPooling: 'p' },
      ),
    );
  };
  await startRelay({ advanceEveryMs: 100 });
  await waitFor(() => lists >= 4, { timeout: 10_000, message: 'four list requests' });
  const cursors = upstream.requests
    .filter((r) => r.path.startsWith('/v2/telegram'))
    .map((r) => new URL(r.path, upstream.origin).searchParams.get('cursorToken'));
  assert.ok(!cursors.includes('undefined'), `cursors sent: ${cursors.join(', ')}`);
  assert.deepEqual(await loadPosition(server.ctx.db, `upstream ${upstream.origin}`), { nextPooling: 'p' });
});

test(
  'a flood of small messages that decompress to 16 MiB each, while a catch-up runs: memory stays bounded',
  engineFree,
  async () => {
    upstream = await startFakeUpstream();
    // The catch-up that `start` begins takes 4 s: everything the socket delivers meanwhile waits.
    let answerList: () => void = () => {};
    const listAnswered = new Promise<void>((resolve) => (answerList = resolve));
    upstream.list = (_req, res, url) => {
      const first = url.searchParams.get('cursorToken') === 'start';
      const answer = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            status: 'ok',
            items: first ? [listItem('flood', `${upstream.origin}/v1/gone`)] : [],
            nextPooling: 'after',
          }),
        );
      if (first) void listAnswered.then(answer);
      else answer();
    };
    // The flood's telegram is gone upstream: once the catch-up has skipped it, every copy is skipped.
    upstream.other = (_req, res) => res.writeHead(404).end();
    await savePosition(server.ctx.db, `upstream ${upstream.origin}`, { nextPooling: 'start' });
    const body = gzipSync(Buffer.alloc(16 * MiB, 0x20)).toString('base64');
    const flood = {
      type: 'data',
      version: '2.0',
      id: 'flood',
      classification: 'telegram.earthquake',
      head: { type: 'VXSE53', author: 'JPOS', time: '2026-11-23T00:00:00Z', designation: null, test: false },
      format: 'xml',
      compression: 'gzip',
      encoding: 'base64',
      body,
    };
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      await startRelay({ timeoutMs: 30_000 });
      await waitFor(() => upstream.sockets > 0, { timeout: 10_000, message: 'the relay connected' });
      for (let i = 0; i < 48; i++) upstream.send(flood);
      await sleep(3000);
    } finally {
      clearInterval(sampler);
    }
    answerList();
    const growth = (Math.max(peak, process.memoryUsage().rss) - before) / MiB;
    // 48 bodies of 16 MiB held at once would be 768 MiB.
    assert.ok(growth < 256, `RSS grew ${growth.toFixed(0)} MiB`);
    await waitFor(() => upstream.sockets > 0, { message: 'the relay still connected' });
  },
);

test('a listed body that keeps failing (503) stops the catch-ups only for the grace; the telegrams after it are recovered', async () => {
  upstream = await startFakeUpstream();
  await savePosition(server.ctx.db, `upstream ${upstream.origin}`, { nextPooling: 'start' });
  upstream.list = (_req, res, url) => {
    const from = url.searchParams.get('cursorToken');
    // Newest first: the good one was listed after the failing one.
    const items =
      from === 'start'
        ? [
            listItem('good', `${upstream.origin}/v1/good`),
            listItem('failing', `${upstream.origin}/v1/failing`),
          ]
        : [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'ok', items, nextPooling: 'next' }));
  };
  upstream.other = (_req, res, url) => {
    if (url.pathname === '/v1/good')
      return res.writeHead(200, { 'content-type': 'application/xml' }).end(QUAKE);
    res.writeHead(503).end();
  };
  await startRelay({ advanceEveryMs: 100, bodyGraceMs: 500 });
  await waitFor(async () => (await storedXml()) === 1, {
    timeout: 10_000,
    message: 'the good telegram stored',
  });
  // The position moves once the catch-up's telegrams are stored: a moment after the good one.
  await waitFor(
    async () =>
      (await loadPosition<{ nextPooling: string }>(server.ctx.db, `upstream ${upstream.origin}`))
        ?.nextPooling === 'next',
    { timeout: 10_000, message: 'the position moved past the catch-up' },
  );
  const failing = upstream.requests.filter((r) => r.path === '/v1/failing').length;
  assert.ok(failing >= 2, `the failing body was asked ${failing} times within the grace`);
});

test('a stored position the upstream refuses (400) is replaced by its newest; catch-ups go on from there', async () => {
  upstream = await startFakeUpstream();
  await savePosition(server.ctx.db, `upstream ${upstream.origin}`, { nextPooling: 'expired' });
  upstream.list = (_req, res, url) => {
    if (url.searchParams.get('cursorToken') === 'expired') {
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({ status: 'error', error: { message: 'cursorToken is invalid.', code: 400 } }),
      );
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'ok', items: [], nextPooling: 'fresh' }));
  };
  await startRelay({ advanceEveryMs: 100 });
  await waitFor(
    () =>
      upstream.requests.some(
        (r) =>
          r.path.startsWith('/v2/telegram') &&
          new URL(r.path, upstream.origin).searchParams.get('cursorToken') === 'fresh',
      ),
    { timeout: 10_000, message: 'a catch-up from the new position' },
  );
  assert.deepEqual(await loadPosition(server.ctx.db, `upstream ${upstream.origin}`), {
    nextPooling: 'fresh',
  });
});
