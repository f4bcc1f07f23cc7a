/**
 * The JMA feed source where a telegram could be lost: a database that is down when the source
 * starts, an entry that failed for a moment while a long-term feed took its first record, a
 * high-frequency feed that failed at the first start, and an odd 304 to an entry's request.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, test } from 'node:test';
import type { Db } from '../../src/db/types.ts';
import { JmaFeedSource, type JmaFeedOptions } from '../../src/sources/jma-feed.ts';
import type { SourceDeps } from '../../src/sources/deps.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { REAL, startFeedServer, type FeedServer } from './feed-server.ts';

const FILES = readdirSync(REAL)
  .filter((f) => f.endsWith('.xml'))
  .sort();

let server: TestServer;
let feed: FeedServer;
const sources: JmaFeedSource[] = [];

before(async () => {
  server = await startTestServer({ listen: false });
});
after(() => server.close());
afterEach(async () => {
  for (const s of sources.splice(0)) await s.stop();
  await feed.close();
  await server.ctx.db.query('DELETE FROM telegrams');
  await server.ctx.db.query('DELETE FROM source_positions');
});

function source(options: Partial<JmaFeedOptions> = {}, deps: SourceDeps = server.ctx): JmaFeedSource {
  const s = new JmaFeedSource(deps, {
    urls: [feed.feedUrl],
    intervalMs: 60_000,
    timeoutMs: 2_000,
    ...options,
  });
  sources.push(s);
  return s;
}

const storedCount = async () =>
  (await server.ctx.db.query<{ n: number }>(`SELECT count(*) AS n FROM telegrams WHERE format = 'xml'`))[0]!
    .n;

test('a database down when the source starts: the source waits, backs off, and polls once it is back', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 2);
  const real = server.ctx.db;
  let down = true;
  let refused = 0;
  const db: Db = {
    engine: real.engine,
    query: (sql, params) => {
      if (!down) return real.query(sql, params);
      refused++;
      return Promise.reject(new Error('connect ECONNREFUSED'));
    },
    exec: (sql) => real.exec(sql),
    tx: (fn) => real.tx(fn),
    close: () => real.close(),
  };
  const s = source({ intervalMs: 200 }, { ...server.ctx, db });
  s.start();
  await sleep(600);
  // Not a busy loop on the database: a few attempts, spaced by the backoff.
  assert.ok(refused >= 1 && refused <= 10, `${refused} attempts to load the position in 600 ms`);
  down = false;
  await waitFor(async () => (await storedCount()) === 2, { timeout: 5_000, message: 'the entries stored' });
});

test("an entry that failed for a moment is fetched again, though a long-term feed's first record lists it", async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 3);
  const failing = `/data/${FILES[1]}`;
  feed.behaviour.set(failing, 'error-500');
  // The stand-in serves the same document under the long-term name.
  const longUrl = feed.feedUrl.replace('eqvol.xml', 'eqvol_l.xml');
  const s = source({ urls: [feed.feedUrl, longUrl] });
  await s.pollOnce();
  assert.equal(await storedCount(), 2);
  feed.behaviour.clear();
  await s.pollOnce();
  assert.equal(feed.count(failing), 2);
  assert.equal(await storedCount(), 3);
});

test('a high-frequency feed that fails at the first start is ingested in full once it answers', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 3);
  const longUrl = feed.feedUrl.replace('eqvol.xml', 'eqvol_l.xml');
  feed.behaviour.set('/feed/eqvol.xml', 'error-500');
  const s = source({ urls: [feed.feedUrl, longUrl] });
  await s.pollOnce();
  assert.equal(await storedCount(), 0);
  feed.behaviour.clear();
  await s.pollOnce();
  assert.equal(await storedCount(), 3);
});

test('an entry answered 304 without having been asked conditionally is fetched again at the next poll', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 2);
  const odd = `/data/${FILES[0]}`;
  feed.behaviour.set(odd, 'not-modified');
  const s = source();
  await s.pollOnce();
  assert.equal(await storedCount(), 1);
  feed.behaviour.clear();
  await s.pollOnce();
  assert.equal(feed.count(odd), 2);
  assert.equal(await storedCount(), 2);
});

test('an entry listed before its file is there (404) is fetched again and stored once it answers', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 2);
  const early = `/data/${FILES[1]}`;
  feed.behaviour.set(early, 'not-found');
  const s = source();
  await s.pollOnce();
  assert.equal(await storedCount(), 1);
  feed.behaviour.clear();
  await s.pollOnce();
  assert.equal(feed.count(early), 2);
  assert.equal(await storedCount(), 2);
});

test('an entry that answers 404 past the grace is skipped for good', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 2);
  const gone = `/data/${FILES[1]}`;
  feed.behaviour.set(gone, 'not-found');
  const s = source({ entryGraceMs: 300 });
  await s.pollOnce();
  await s.pollOnce();
  assert.equal(feed.count(gone), 2, 'fetched again within the grace');
  await sleep(350);
  await s.pollOnce();
  feed.behaviour.clear();
  await s.pollOnce();
  assert.equal(feed.count(gone), 3, 'not fetched once skipped');
  assert.equal(await storedCount(), 1);
});
