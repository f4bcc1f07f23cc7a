/**
 * NAMAZU_MAX_TELEGRAM_BYTES on the network sources (docs/telegrams.md "Size"): a JMA feed entry and
 * an upstream telegram one byte over the limit are refused, logged and counted, store nothing, and
 * the telegrams around them are stored.
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { JmaFeedSource } from '../../src/sources/jma-feed.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { freePort, quake } from '../multinode/support.ts';
import { REAL, startFeedServer } from './feed-server.ts';
import { ingestInto, relayKey, relayPositioned, startRelay, startUpstream } from './relay-support.ts';

const LIMIT = 64 * 1024;
let server: TestServer;

before(async () => {
  server = await startTestServer({ config: { maxTelegramBytes: LIMIT } });
});
after(() => server.close());

const xmlCount = async (s: TestServer) =>
  (await s.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM telegrams WHERE format = 'xml'`))[0]!
    .n;
const rejections = async (source: string) =>
  (await server.ctx.metrics.sourceRejections.get()).values.find((v) => v.labels.source === source)?.value ??
  0;

test('a JMA feed entry one byte over the limit is abandoned, counted and not fetched again', async () => {
  const bySize = readdirSync(REAL)
    .filter((f) => f.endsWith('.xml'))
    .map((f) => ({ f, size: statSync(join(REAL, f)).size }))
    .sort((a, b) => a.size - b.size);
  const small = bySize[0]!;
  const big = bySize.at(-1)!;
  assert.ok(big.size > small.size + 1);
  const feed = await startFeedServer();
  // The limit of this source's process: one byte less than the larger entry.
  const source = new JmaFeedSource(
    { ...server.ctx, config: { maxTelegramBytes: big.size - 1 } },
    { urls: [feed.feedUrl], intervalMs: 60_000, timeoutMs: 5_000 },
  );
  try {
    await source.pollOnce(); // empty feed: takes the position
    const [stored, refused] = [await xmlCount(server), await rejections('jma-feed')];
    feed.entries = [small.f, big.f];
    await source.pollOnce();
    assert.equal(await xmlCount(server), stored + 1, 'the smaller entry is stored, the larger not');
    assert.equal(await rejections('jma-feed'), refused + 1);
    // Not tried again at the next poll.
    feed.entries = [small.f, big.f, bySize[1]!.f];
    await source.pollOnce();
    assert.equal(feed.count(`/data/${big.f}`), 1);
    assert.equal(await xmlCount(server), stored + 2);
  } finally {
    await source.stop();
    await feed.close();
  }
});

test('an upstream telegram that decodes to one byte over the limit is refused; the next is relayed', async () => {
  let upstreamDb: TestDatabase | undefined;
  let upstream: TestServer | undefined;
  let relay: ReturnType<typeof startRelay> | undefined;
  try {
    upstreamDb = await createTestDatabase();
    upstream = await startUpstream(upstreamDb, await freePort());
    relay = startRelay(server, {
      url: upstream.url,
      credential: { apiKey: await relayKey(upstream) },
      connections: 1,
    });
    await relayPositioned(server);
    const [stored, refused] = [await xmlCount(server), await rejections('upstream')];
    const base = quake('size');
    // The same earthquake telegram grown by a comment to the limit + 1 byte: gzip makes it small on
    // the socket, so only its decoded size is over.
    const over = Buffer.concat([base, Buffer.from(`<!--${'x'.repeat(LIMIT + 1 - base.length - 7)}-->`)]);
    assert.equal(over.length, LIMIT + 1);
    const marker = quake('after the refused one');
    await ingestInto(upstream, [over, marker]);
    await waitFor(async () => (await xmlCount(server)) > stored, { timeout: 30_000, message: 'the marker' });
    assert.equal(await xmlCount(server), stored + 1, 'only the marker is stored');
    // Refused on the socket, and again should the recovery list it: never stored.
    await waitFor(async () => (await rejections('upstream')) > refused, { message: 'the refusal counted' });
  } finally {
    await relay?.stop();
    await upstream?.close();
    await upstreamDb?.drop();
  }
});
