// A commit of this process is held by its telegram cache as the database would give it back, without
// reading it back (telegrams/cache.ts, committed()): lists and deliveries answered from memory stay
// byte for byte what the database gives.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMemoryBus } from '../../src/bus/memory.ts';
import type { Bus } from '../../src/bus/types.ts';
import type { Db } from '../../src/db/types.ts';
import { TelegramCache } from '../../src/telegrams/cache.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { prepareTelegram } from '../../src/telegrams/prepare.ts';
import type { TelegramRecord } from '../../src/telegrams/record.ts';
import { loadTelegram, storeTelegram } from '../../src/telegrams/store.ts';
import { openCountingCacheReads, type CountedDb } from '../support/cache-reads.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { allRestXmlFixtures, fixtureIndex } from '../support/fixtures.ts';

/** A record as JSON text, keys in their order, the body as base64: equal texts are equal bytes out. */
const asText = (t: TelegramRecord) => JSON.stringify({ ...t, body: t.body.toString('base64') });

describe("the cache holds this process's commits as the database gives them back", () => {
  let database: TestDatabase;
  let db: Db;
  let bus: Bus;
  let cache: TelegramCache;
  let stop: () => Promise<void>;
  let reads: CountedDb['reads'];
  let received = Date.parse('2026-03-11T00:00:00.000Z');

  before(async () => {
    database = await createTestDatabase();
    ({ db, reads } = await openCountingCacheReads(database));
    bus = createMemoryBus();
    ({ cache, stop } = await TelegramCache.start(db, bus, { maxItems: 5000, maxBytes: 1024 ** 3 }));
  });
  after(async () => {
    await stop();
    await bus.close();
    await db.close();
    await database.drop();
  });

  const ingest = async (raw: Buffer, fileName?: string) => {
    const outcome = await ingestTelegram({ db, bus, telegrams: cache }, raw, {
      fileName,
      receivedTime: (received += 1000),
    });
    assert.ok(outcome.ok, `${fileName}: ${!outcome.ok && outcome.reason}`);
    return outcome;
  };

  it('every fixture of the four folders: held at its commit, equal to what the database gives', async () => {
    const files = [...fixtureIndex().map((e) => e.path), ...allRestXmlFixtures()];
    const serials: number[] = [];
    reads.count = 0;
    for (const path of files) {
      const outcome = await ingest(readFileSync(path), basename(path));
      if (outcome.stored.duplicate) continue;
      serials.push(outcome.stored.serial, ...(outcome.converted ? [outcome.converted.serial] : []));
      // Held before ingest returned, without a read.
      for (const serial of serials.slice(-2)) assert.ok(cache.get(serial), `${path}: serial ${serial} held`);
    }
    assert.equal(reads.count, 0, 'nothing read back');
    assert.ok(serials.length > files.length, 'conversions were held too');
    for (const serial of serials) {
      const stored = await loadTelegram(db, serial);
      assert.ok(stored);
      assert.equal(asText(cache.get(serial)!), asText(stored), `serial ${serial}`);
    }
  });

  it('after a commit it did not see, the cache reads the gap, and holds commits again', async () => {
    const other = prepareTelegram(Buffer.from('SMJP01 RJTD 120000\r\r\nAAXX 12001 47401 11451=\r\r\n'), {
      receivedTime: (received += 1000),
    });
    assert.ok(other.ok);
    // Another process's commit: stored, not announced here.
    const gap = await storeTelegram(db, other.telegram);
    reads.count = 0;
    const mine = await ingest(Buffer.from('SMJP01 RJTD 120000\r\r\nAAXX 12001 47401 11452=\r\r\n'));
    assert.ok(reads.count > 0, 'the gap was read');
    assert.equal(gap.duplicate, false);
    for (const serial of [gap.serial, mine.stored.serial]) {
      assert.ok(
        cache.get(serial),
        `serial ${serial} held (gap ${gap.serial}, mine ${mine.stored.serial}, newest ${cache.newestSerial})`,
      );
      assert.equal(asText(cache.get(serial)!), asText((await loadTelegram(db, serial))!));
    }
    reads.count = 0;
    const next = await ingest(Buffer.from('SMJP01 RJTD 120000\r\r\nAAXX 12001 47401 11453=\r\r\n'));
    assert.ok(cache.get(next.stored.serial));
    assert.equal(reads.count, 0, 'held again at its commit');
  });

  it('an uncompressed body is its own copy: the received bytes may be reused once ingest settles', async () => {
    const text = 'SMJP01 RJTD 120000\r\r\nAAXX 12001 47401 11454=\r\r\n';
    const raw = Buffer.from(text);
    const outcome = await ingest(raw);
    const held = cache.get(outcome.stored.serial)!;
    const body = held.body.toString('utf8');
    assert.equal(held.compression, null);
    assert.ok(text.endsWith(body), 'the body is the telegram after its heading');
    raw.fill(0x78);
    assert.equal(held.body.toString('utf8'), body);
    assert.equal(asText(held), asText((await loadTelegram(db, outcome.stored.serial))!));
  });
});
