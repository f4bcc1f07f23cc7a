// The live view's stream follows the store like the WebSocket delivery (docs/console-live.md "The
// stream"): a commit this process's cache holds is sent from memory; a commit it does not hold (another
// process's) and the healing timer's wake-up read the database first.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { busCodecs } from '../../../src/bus/codecs.ts';
import { createMemoryBus } from '../../../src/bus/memory.ts';
import { systemClock } from '../../../src/clock.ts';
import type { Bus } from '../../../src/bus/types.ts';
import { defaultFeedLimits, LiveFeed } from '../../../src/console/live/feed.ts';
import type { Db } from '../../../src/db/types.ts';
import { TelegramCache } from '../../../src/telegrams/cache.ts';
import { ingestTelegram } from '../../../src/telegrams/ingest.ts';
import { prepareTelegram } from '../../../src/telegrams/prepare.ts';
import { storeTelegram } from '../../../src/telegrams/store.ts';
import { openCountingCacheReads, type CountedDb } from '../../support/cache-reads.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { fixtureIndex } from '../../support/fixtures.ts';
import { waitFor } from '../../support/wait.ts';

describe('the live view stream reads the database only for commits its cache does not hold', () => {
  let database: TestDatabase;
  let db: Db;
  let bus: Bus;
  let stopCache: () => Promise<void>;
  let cache: TelegramCache;
  let feed: LiveFeed;
  let server: Server;
  let stream: IncomingMessage;
  let received = '';
  let reads: CountedDb['reads'];
  /** What the feed reported as failed (nothing should). */
  const errors: unknown[] = [];
  let receivedTime = Date.parse('2026-03-11T00:00:00.000Z');
  const quakes = fixtureIndex().filter((e) => e.type === 'VXSE53');

  before(async () => {
    database = await createTestDatabase();
    ({ db, reads } = await openCountingCacheReads(database));
    bus = createMemoryBus();
    const started = await TelegramCache.start(db, bus);
    stopCache = started.stop;
    cache = started.cache;
    feed = new LiveFeed(started.cache, systemClock, defaultFeedLimits, (err) => errors.push(err));
    // As the console wires it (console/live/routes.ts): after the cache's own subscription.
    await busCodecs.telegram.subscribe(bus, feed.wake);
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      const client = {
        accountId: 1,
        sessionDigest: 'd',
        classifications: new Set(['telegram.earthquake']),
      };
      void feed.newest().then((newest) => feed.open(client, res, newest));
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    stream = await new Promise((resolve) => get(`http://127.0.0.1:${port}/`, resolve));
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (received += chunk));
    await waitFor(() => feed.clients().length > 0, { message: 'the stream opened' });
  });
  after(async () => {
    stream.destroy();
    feed.closeAll();
    server.close();
    await stopCache();
    await bus.close();
    await db.close();
    await database.drop();
  });

  /** Resolves once the stream has sent the event of `serial`. */
  const streamed = (serial: number) =>
    waitFor(() => received.includes(`id: ${serial}\n`), {
      interval: 5,
      message: `serial ${serial} streamed`,
    });

  /** Ingests a VXSE53 in this process and waits until the stream has sent it. */
  async function ingestAndStream(index: number) {
    const entry = quakes[index]!;
    const outcome = await ingestTelegram({ db, bus, telegrams: cache }, readFileSync(entry.path), {
      fileName: entry.file,
      receivedTime: (receivedTime += 1000),
    });
    assert.ok(outcome.ok && !outcome.stored.duplicate);
    await streamed(outcome.converted?.serial ?? outcome.stored.serial);
  }

  it("this process's commits are sent from memory", async () => {
    // Once the first is streamed, the stream's opening reads are over.
    await ingestAndStream(0);
    reads.count = 0;
    for (const index of [1, 2, 3]) await ingestAndStream(index);
    assert.match(received, /event: telegram\n/);
    assert.equal(reads.count, 0, 'no read of the database');
    assert.deepEqual(errors, []);
  });

  it("another process's commit, and the timer's wake-up, read the database first", async () => {
    reads.count = 0;
    // Stored as another process stores it: not in this process's cache, announced on the bus.
    const prepared = prepareTelegram(readFileSync(quakes[4]!.path), {
      fileName: quakes[4]!.file,
      receivedTime: (receivedTime += 1000),
    });
    assert.ok(prepared.ok);
    const stored = await storeTelegram(db, prepared.telegram);
    await busCodecs.telegram.publish(bus, { serial: stored.serial });
    await streamed(stored.serial);
    assert.ok(reads.count >= 1, 'read from the database');
    reads.count = 0;
    feed.wake();
    await waitFor(() => reads.count >= 1, { message: "the timer's wake-up reads" });
    assert.deepEqual(errors, []);
  });
});
