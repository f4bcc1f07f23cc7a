/**
 * Finding 6 of the second adversarial round (docs/security.md): a hostile upstream answers the
 * relay with a gzip bomb (1 GiB of zeros), a list that never ends (hundreds of MB) and pages that
 * never end. Each answer is bounded like the feed's, a catch-up reads at most
 * MAX_PAGES_PER_CATCH_UP pages, and a telegram delivered live meanwhile is still stored.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { savePosition } from '../../src/sources/positions.ts';
import { MAX_PAGES_PER_CATCH_UP, UpstreamRelay } from '../../src/sources/upstream.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { REAL } from './feed-server.ts';
import { listItem, startFakeUpstream, type FakeUpstream } from './fake-upstream.ts';

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
  await upstream.close();
  await server.ctx.db.query('DELETE FROM telegrams');
  await server.ctx.db.query('DELETE FROM source_positions');
});

const storedXml = async () =>
  (await server.ctx.db.query<{ n: number }>(`SELECT count(*) AS n FROM telegrams WHERE format = 'xml'`))[0]!
    .n;
const rejections = async () =>
  (await server.ctx.metrics.sourceRejections.get()).values.reduce((n, v) => n + v.value, 0);

/** Starts the relay on the fake upstream from a stored position, so its first catch-up reads pages. */
async function startRelay(): Promise<void> {
  await savePosition(server.ctx.db, `upstream ${upstream.origin}`, { nextPooling: 'start' });
  relay = new UpstreamRelay(server.ctx, {
    url: upstream.origin,
    credential: { apiKey: 'upstream-key' },
    classifications: ['telegram.earthquake'],
    connections: 1,
    timeoutMs: 5000,
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

test('a 1 GiB gzip bomb as a body is abandoned at the size cap; the next telegram is stored', async () => {
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
      return res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' }).end(bomb);
    }
    res.writeHead(200, { 'content-type': 'application/xml' }).end(quakeXml('after the bomb'));
  };
  const rejectedBefore = await rejections();
  const growth = await rssGrowth(async () => {
    await startRelay();
    await waitFor(async () => (await storedXml()) === 1, {
      timeout: 20_000,
      message: 'the telegram after the bomb',
    });
  });
  assert.equal(bombsServed, 1);
  assert.equal((await rejections()) - rejectedBefore, 1, 'the bomb is refused and counted');
  assert.ok(growth < 64, `RSS grew ${growth.toFixed(1)} MiB`);
});

test('a list answer that never ends is abandoned at its cap; live delivery goes on', async () => {
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
    await startRelay();
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
  await startRelay();
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
