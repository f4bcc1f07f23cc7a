/**
 * The JMA feed source against hosts that close connections early (docs/sources.md "Network
 * sources"): after 1 s and after 5 s of idleness with polls crossing that time, and a host that
 * drops a reused connection as the request arrives (the race of a close and a request). Every poll
 * completes, so the next one is conditional, and no entry is fetched twice.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, afterEach, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { JmaFeedSource } from '../../src/sources/jma-feed.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { REAL, startFeedServer, type FeedServer, type FeedServerOptions } from './feed-server.ts';
import { engineFree } from '../support/engine.ts';

const FILES = readdirSync(REAL)
  .filter((f) => f.endsWith('.xml'))
  .sort();

let server: TestServer;
let feed: FeedServer | undefined;
let source: JmaFeedSource | undefined;

before(async () => {
  server = await startTestServer({ listen: false });
});
after(() => server.close());
afterEach(async () => {
  await source?.stop();
  await feed?.close();
  await server.ctx.db.query('DELETE FROM telegrams');
  await server.ctx.db.query('DELETE FROM source_positions');
});

const storedCount = async () =>
  (await server.ctx.db.query<{ n: number }>(`SELECT count(*) AS n FROM telegrams WHERE format = 'xml'`))[0]!
    .n;

/**
 * Three polls `pauseMs` apart, one entry more before each of the first two and none before the
 * third: each poll's feed request carries the validators of the previous answer.
 */
async function pollAcross(options: FeedServerOptions, pauseMs: number): Promise<FeedServer> {
  feed = await startFeedServer(options);
  source = new JmaFeedSource(server.ctx, { urls: [feed.feedUrl], intervalMs: 60_000, timeoutMs: 5_000 });
  const etags: string[] = [];
  for (let poll = 1; poll <= 3; poll++) {
    feed.entries = FILES.slice(0, Math.min(poll, 2) + 1);
    etags.push(`"${feed.entries.length}-${feed.entries.at(-1)}"`);
    await source.pollOnce();
    if (poll < 3) await sleep(pauseMs);
  }
  const feedRequests = feed.requests.filter((r) => r.path === '/feed/eqvol.xml');
  assert.equal(feedRequests.length, 3);
  assert.equal(feedRequests[0]!.headers['if-none-match'], undefined);
  assert.equal(feedRequests[1]!.headers['if-none-match'], etags[0], 'poll 1 completed');
  assert.equal(feedRequests[2]!.headers['if-none-match'], etags[1], 'poll 2 completed');
  const fetched = feed.requests.filter((r) => r.path.startsWith('/data/')).map((r) => r.path);
  assert.deepEqual(
    fetched,
    FILES.slice(0, 3).map((f) => `/data/${f}`),
    'every entry fetched once',
  );
  assert.equal(await storedCount(), 3);
  return feed;
}

test('a host closing idle connections after 1 s, polls 1.2 s apart: every poll complete, nothing fetched twice', async () => {
  await pollAcross({ keepAliveTimeoutMs: 1000 }, 1200);
});

test(
  'a host closing idle connections after 5 s, polls 5.2 s apart: every poll complete, nothing fetched twice',
  engineFree,
  async () => {
    await pollAcross({ keepAliveTimeoutMs: 5000 }, 5200);
  },
);

test(
  'a host dropping each reused connection as the request arrives: every poll complete, nothing fetched twice',
  engineFree,
  async () => {
    const host = await pollAcross({ dropReused: true, keepAliveTimeoutMs: 60_000 }, 100);
    assert.ok(host.dropped >= 2, `requests dropped on a reused connection: ${host.dropped}`);
  },
);
