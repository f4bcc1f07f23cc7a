// A telegram cache starting while telegrams are announced (another node ingesting as this one starts):
// whatever order its first load and the reads the announcements cause take, every telegram above the
// serial it calls complete is held (telegrams/cache.ts).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { busCodecs } from '../../src/bus/codecs.ts';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { TelegramCache } from '../../src/telegrams/cache.ts';
import { ingestInOrder } from '../../src/telegrams/ingest.ts';
import { loadTelegramsAfter } from '../../src/telegrams/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const STORED = 600;
const received = Date.parse('2026-03-11T00:00:00.000Z');

describe('a telegram cache started while telegrams are announced', () => {
  let database: TestDatabase;
  let db: Db;

  before(async () => {
    database = await createTestDatabase();
    db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 4 });
    const items = Array.from({ length: STORED }, (_, i) => ({
      raw: Buffer.from(`SMJP01 RJTD 120000\r\r\nAAXX 12001 47401 ${i}=\r\r\n`),
      hints: { receivedTime: received + i },
    }));
    await ingestInOrder({ db, bus: createMemoryBus() }, items, (outcome) => assert.ok(outcome.ok));
  });
  after(async () => {
    await db.close();
    await database.drop();
  });

  it('holds every telegram above the serial it calls complete, when its first load answers between two reads', async () => {
    const bus = createMemoryBus();
    // On PostgreSQL the first load (the newest telegrams) and a read of what follows the newest held
    // one run on two connections, in either order. Here the first load answers after the first such
    // read and before the next one (or after a while, when no read comes).
    let firstRead: () => void = () => {};
    const firstReadDone = new Promise<void>((resolve) => (firstRead = resolve));
    let loadDone: () => void = () => {};
    const loaded = new Promise<void>((resolve) => (loadDone = resolve));
    let reads = 0;
    const interleaved: Db = {
      ...db,
      query: async (sql, params) => {
        if (/ORDER BY serial DESC LIMIT/.test(sql)) {
          // Another node commits and announces its newest telegram while this one loads.
          await busCodecs.telegram.publish(bus, { serial: STORED });
          await Promise.race([firstReadDone, sleep(500)]);
          const rows = await db.query(sql, params);
          loadDone();
          return rows as never;
        }
        if (/WHERE serial > \$1 ORDER BY serial/.test(sql)) {
          const read = ++reads;
          if (read > 1) await Promise.race([loaded, sleep(500)]);
          const rows = await db.query(sql, params);
          if (read === 1) firstRead();
          return rows as never;
        }
        return db.query(sql, params);
      },
    };
    const { cache, stop } = await TelegramCache.start(interleaved, bus, { maxItems: 10 });
    try {
      const fromDatabase = (await loadTelegramsAfter(db, 520, STORED)).map((t) => t.serial);
      const fromCache = (await cache.after(520, STORED)).map((t) => t.serial);
      assert.deepEqual(fromCache, fromDatabase);
      const polled = cache.query({
        classifications: ['telegram.weather'],
        test: 'including',
        after: 520,
        limit: 50,
      });
      const expected = fromDatabase.slice(0, 50).reverse();
      assert.ok(
        polled === undefined || polled.map((t) => t.serial).join() === expected.join(),
        'a polling page',
      );
    } finally {
      await stop();
      await bus.close();
    }
  });
});
