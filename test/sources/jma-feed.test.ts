import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, test } from 'node:test';
import { pino } from 'pino';
import type { Db } from '../../src/db/types.ts';
import { createMetrics } from '../../src/metrics.ts';
import { JmaFeedSource, type JmaFeedOptions } from '../../src/sources/jma-feed.ts';
import type { SourceDeps } from '../../src/sources/deps.ts';
import { testFetch } from '../support/fetch.ts';
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

/** The service's dependencies with a logger whose records the test reads. */
function depsWithLog(): { deps: SourceDeps; logs: { level: number; msg: string; url?: string }[] } {
  const logs: { level: number; msg: string; url?: string }[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  return { deps: { ...server.ctx, log }, logs };
}

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

async function storedFiles(): Promise<string[]> {
  const rows = await server.ctx.db.query<{ title: string; time: string }>(
    `SELECT xml_report->'control'->>'dateTime' AS time, xml_report->'head'->>'title' AS title
       FROM telegrams WHERE format = 'xml' ORDER BY serial`,
  );
  return rows.map((r) => `${r.time} ${r.title}`);
}

const storedCount = async () =>
  (await server.ctx.db.query<{ n: number }>(`SELECT count(*) AS n FROM telegrams WHERE format = 'xml'`))[0]!
    .n;

const xmlRequests = () => feed.requests.filter((r) => r.path.startsWith('/data/')).map((r) => r.path);

test('new entries are ingested once, oldest first; a feed that did not change is asked for conditionally', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 3);
  const s = source();
  await s.pollOnce();
  assert.equal(await storedCount(), 3);
  assert.deepEqual(
    xmlRequests(),
    FILES.slice(0, 3).map((f) => `/data/${f}`),
  );

  // Unchanged: the second request carries both validators and is answered 304; no XML is fetched.
  await s.pollOnce();
  const second = feed.requests.filter((r) => r.path === '/feed/eqvol.xml')[1]!;
  assert.equal(second.headers['if-none-match'], '"3-' + FILES[2] + '"');
  assert.equal(second.headers['if-modified-since'], new Date(Date.UTC(2026, 10, 23, 0, 3)).toUTCString());
  assert.equal(xmlRequests().length, 3);

  // Two more entries: only they are fetched.
  feed.entries = FILES.slice(0, 5);
  await s.pollOnce();
  assert.equal(await storedCount(), 5);
  assert.deepEqual(
    xmlRequests().slice(3),
    FILES.slice(3, 5).map((f) => `/data/${f}`),
  );
  // Oldest first: the file names begin with their issue time.
  const stored = await storedFiles();
  assert.deepEqual([...stored].sort(), stored);
});

test('a restart resumes from the stored position without fetching again', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 3);
  await source().pollOnce();
  const before = xmlRequests().length;

  // A new source on the same database (a restarted process) sends the stored validators.
  const restarted = source();
  await restarted.pollOnce();
  assert.equal(feed.requests.at(-1)!.headers['if-none-match'], '"3-' + FILES[2] + '"');
  assert.equal(xmlRequests().length, before);

  // The feed changed while it was down: only the new entry is fetched, though all four are listed.
  feed.entries = FILES.slice(0, 4);
  await source().pollOnce();
  assert.deepEqual(xmlRequests().slice(before), [`/data/${FILES[3]}`]);
  assert.equal(await storedCount(), 4);
});

test('a 500, a time-out, a truncated body, a 50 MB body and a malformed Atom document leave the source running and store nothing', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 2);
  const { deps, logs } = depsWithLog();
  const failedRequests = async () =>
    (await server.ctx.metrics.sourceRequests.get()).values
      .filter((v) => v.labels.outcome === 'failed')
      .reduce((n, v) => n + v.value, 0);
  const failedBefore = await failedRequests();
  // A short interval and time-out so the running loop retries within the test.
  const s = source({ intervalMs: 200, timeoutMs: 300 }, deps);
  s.start();
  for (const mode of ['error-500', 'hang', 'truncated', 'huge', 'malformed'] as const) {
    const served = feed.count('/feed/eqvol.xml');
    feed.behaviour.set('/feed/eqvol.xml', mode);
    // Answered in this mode: the running source came back after the previous failure.
    await waitFor(() => feed.count('/feed/eqvol.xml') > served, { timeout: 10_000, message: mode });
    assert.equal(await storedCount(), 0, mode);
  }
  // The feed server has seen the last request; the source counts its failure once it has read
  // the malformed answer, a moment later.
  await waitFor(async () => (await failedRequests()) - failedBefore >= 5, {
    message: 'five failures counted',
  });
  // The outage was said once, not once per attempt.
  assert.equal(logs.filter((l) => l.msg === 'JMA feed unreachable or invalid; backing off').length, 1);
  // The service stays healthy all along.
  assert.equal((await testFetch(`${server.url}/healthz`)).status, 200);

  feed.behaviour.delete('/feed/eqvol.xml');
  await waitFor(async () => (await storedCount()) === 2, { timeout: 10_000, message: 'recovery' });
  // The recovery is said once the poll that stored them has also saved its position, a moment later.
  const saidReachable = () => logs.filter((l) => l.msg === 'JMA feed reachable again').length;
  await waitFor(() => saidReachable() > 0, { message: 'recovery said' });
  assert.equal(saidReachable(), 1);
});

test('an entry whose XML fails is logged with its URL and counted; the others are stored and the failed one is retried only when worth it', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 5);
  const [, broken, truncated, huge] = FILES.map((f) => `/data/${f}`);
  feed.behaviour.set(broken!, 'malformed'); // not JMA XML: refused by the ingest, never asked again
  feed.behaviour.set(truncated!, 'truncated'); // cut off: nothing stored, asked again at the next poll
  feed.behaviour.set(huge!, 'huge'); // over the telegram size limit: skipped
  const { deps, logs } = depsWithLog();
  const rejectedBefore = (await server.ctx.metrics.sourceRejections.get()).values[0]?.value ?? 0;
  // No grace: an answer that looks final is final at once (feed-recovery.test.ts tries the grace).
  const s = source({ entryGraceMs: 0 }, deps);
  await s.pollOnce();
  assert.equal(await storedCount(), 2);
  const warned = logs
    .filter((l) => l.level === 40 && l.url?.startsWith(feed.origin + '/data/'))
    .map((l) => l.url);
  assert.deepEqual(warned.sort(), [feed.origin + broken, feed.origin + huge].sort());
  assert.equal((await server.ctx.metrics.sourceRejections.get()).values[0]!.value - rejectedBefore, 2);

  // The feed has not changed, but an entry is left to retry: the feed is asked for unconditionally.
  feed.behaviour.clear();
  await s.pollOnce();
  assert.equal(
    feed.requests.filter((r) => r.path === '/feed/eqvol.xml')[1]!.headers['if-none-match'],
    undefined,
  );
  assert.equal(feed.count(truncated!), 2);
  assert.equal(feed.count(broken!), 1);
  assert.equal(feed.count(huge!), 1);
  assert.equal(await storedCount(), 3);
});

test('a long-term feed seen for the first time is recorded without fetching its history', async () => {
  feed = await startFeedServer();
  feed.entries = FILES.slice(0, 3);
  const longUrl = feed.feedUrl.replace('eqvol.xml', 'eqvol_l.xml');
  // The stand-in serves the same document under the long-term name.
  const s = source({ urls: [longUrl] });
  await s.pollOnce();
  assert.equal(xmlRequests().length, 0);
  assert.equal(await storedCount(), 0);
  // What appears after that is fetched.
  feed.entries = FILES.slice(0, 4);
  await s.pollOnce();
  assert.deepEqual(xmlRequests(), [`/data/${FILES[3]}`]);
  assert.equal(await storedCount(), 1);
});

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

test('a started feed exports its rejections at 0, so that the alert counts the first one', async () => {
  feed = await startFeedServer();
  const metrics = createMetrics();
  const s = source({}, { ...server.ctx, metrics });
  s.start();
  assert.match(await metrics.registry.metrics(), /^namazu_source_rejections_total\{source="jma-feed"\} 0$/m);
});
