/** `namazu serve` runs the configured sources in exactly one process of a node. */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { redisUrl, SECRET, serve } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';
import { REAL, startFeedServer } from './feed-server.ts';

const FILES = readdirSync(REAL)
  .filter((f) => f.endsWith('.xml'))
  .sort()
  .slice(0, 2);

const countXml = async (db: Db) => (await db.query(`SELECT 1 FROM telegrams WHERE format = 'xml'`)).length;

async function storedXml(databaseUrl: string | null, dataDir: string): Promise<number> {
  const db = await openDb({ databaseUrl, dataDir, poolSize: 1 });
  try {
    return await countXml(db);
  } finally {
    await db.close();
  }
}

/** The node's count of stored telegrams, from its /metrics (readable from loopback). */
async function ingestedTotal(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  return metrics
    .split('\n')
    .filter((line) => line.startsWith('namazu_telegrams_ingested_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

test('NAMAZU_SOURCES=jma-feed: the server polls the feed and stores its entries; /healthz answers', async () => {
  const feed = await startFeedServer();
  const database = await createTestDatabase();
  feed.entries = FILES;
  const node = await serve({
    ...(database.databaseUrl ? { NAMAZU_DATABASE_URL: database.databaseUrl } : {}),
    NAMAZU_DATA_DIR: database.dataDir,
    NAMAZU_SOURCES: 'jma-feed',
    NAMAZU_JMA_FEED_URLS: feed.feedUrl,
  });
  try {
    await waitFor(() => FILES.every((f) => feed.count(`/data/${f}`) === 1), {
      timeout: 30_000,
      message: 'the entries fetched',
    });
    // Fetched is not yet stored: the node is stopped only once it has ingested them.
    await waitFor(async () => (await ingestedTotal(node.url)) === FILES.length, {
      message: 'the entries ingested',
    });
    assert.equal((await fetch(`${node.url}/healthz`)).status, 200);
    assert.equal(node.output().match(/"sources started"/g)?.length, 1);
  } finally {
    assert.equal(await node.stop(), 0);
    await feed.close();
  }
  assert.equal(await storedXml(database.databaseUrl, database.dataDir), FILES.length);
  await database.drop();
});

test(
  '--workers 2: one process of the node runs the sources',
  { skip: testDatabaseUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set' },
  async () => {
    const feed = await startFeedServer();
    const database = await createTestDatabase();
    feed.entries = FILES;
    // PostgreSQL: this test reads the database while the cluster runs, on one connection.
    const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
    try {
      const cluster = await serve(
        {
          NAMAZU_DATABASE_URL: database.databaseUrl!,
          NAMAZU_BUS: redisUrl ? 'redis' : 'postgres',
          ...(redisUrl ? { NAMAZU_REDIS_URL: redisUrl } : {}),
          NAMAZU_SECRET: SECRET,
          NAMAZU_SOURCES: 'jma-feed',
          NAMAZU_JMA_FEED_URLS: feed.feedUrl,
        },
        { args: ['--workers', '2', '--data-dir', database.dataDir], listeners: 2 },
      );
      try {
        // Each worker logs its sources before it says it listens: both have spoken by now.
        assert.equal(cluster.output().match(/"sources started"/g)?.length, 1);
        await waitFor(() => FILES.every((f) => feed.count(`/data/${f}`) === 1), {
          timeout: 30_000,
          message: 'the entries fetched',
        });
        // Fetched is not yet stored: the cluster is stopped only once they are in the database.
        await waitFor(async () => (await countXml(db)) === FILES.length, { message: 'the entries stored' });
        assert.equal(feed.count('/feed/eqvol.xml'), 1);
      } finally {
        await cluster.stop();
        await feed.close();
      }
      assert.equal(await countXml(db), FILES.length);
    } finally {
      // Closed on every path, also when the cluster fails to start: an open pool keeps the test alive.
      await db.close();
    }
    await database.drop();
  },
);
