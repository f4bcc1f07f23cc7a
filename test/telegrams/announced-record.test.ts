// Another process's commit carried in its notice on a network bus (telegrams/announced-record.ts): a
// process holds it, as the database would give it back, before any subscriber after the cache hears
// the notice, without reading it; what the notice cannot carry, or carries altered, is read.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { busCodecs } from '../../src/bus/codecs.ts';
import { openBus } from '../../src/bus/open.ts';
import type { Bus } from '../../src/bus/types.ts';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { announcedRecord, NOTICE_MAX_BYTES, recordFragment } from '../../src/telegrams/announced-record.ts';
import { TelegramCache } from '../../src/telegrams/cache.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { prepareTelegram } from '../../src/telegrams/prepare.ts';
import type { TelegramRecord } from '../../src/telegrams/record.ts';
import { committedRecord, loadTelegram } from '../../src/telegrams/store.ts';
import { openCountingCacheReads, type CountedDb } from '../support/cache-reads.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { allRestXmlFixtures, fixture, fixtureIndex } from '../support/fixtures.ts';
import { busSkip, redisUrl } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';

/** A record as JSON text, keys in their order, the body as base64: equal texts are equal bytes out. */
const asText = (t: TelegramRecord) => JSON.stringify({ ...t, body: t.body.toString('base64') });
const SUFFIX = ',"origin":"00000000-0000-4000-8000-000000000000"}';
const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));

/** The record of a prepared telegram, as a notice of serial `serial` would carry it. */
function carried(raw: Buffer, serial: number): { record: TelegramRecord; notice: string } {
  const prepared = prepareTelegram(raw, { receivedTime: Date.parse('2026-03-11T00:00:00.000Z') });
  assert.ok(prepared.ok);
  const record = committedRecord(prepared.telegram, serial);
  const notice = `{"serial":${serial}${recordFragment(record, SUFFIX)}${SUFFIX}`;
  return { record, notice };
}

describe("a notice's record", () => {
  it('is read back as the record it was made of, and the notice stays under the limit', () => {
    const { record, notice } = carried(EEW, 123_456_789);
    assert.ok(Buffer.byteLength(notice) <= NOTICE_MAX_BYTES, `${Buffer.byteLength(notice)} bytes`);
    const decoded = busCodecs.telegram.decode(notice);
    assert.equal(decoded?.serial, 123_456_789);
    const read = announcedRecord(decoded.serial, decoded.record);
    assert.ok(read);
    assert.equal(asText(read), asText(record));
  });

  it('is left out when the notice would be too long, and the notice still names the serial', () => {
    // A headline of 3,000 characters: 9,000 bytes of UTF-8.
    const long = Buffer.from(
      EEW.toString('utf8').replace(/<Headline>\s*<Text>[^<]*/, `<Headline><Text>${'強'.repeat(3000)}`),
    );
    const { notice } = carried(long, 7);
    assert.deepEqual(busCodecs.telegram.decode(notice), { serial: 7 });
  });

  it('is not taken when its body is not the one its id names, or of another version, or malformed', () => {
    const { notice } = carried(EEW, 8);
    const { record } = busCodecs.telegram.decode(notice)! as { record: Record<string, unknown> };
    const body = Buffer.from(record.body as string, 'base64');
    body[body.length - 1]! ^= 1;
    assert.equal(announcedRecord(8, { ...record, body: body.toString('base64') }), null);
    assert.equal(announcedRecord(8, { ...record, v: 2 }), null);
    assert.equal(announcedRecord(8, { ...record, head: { ...(record.head as object), test: 'no' } }), null);
    assert.equal(announcedRecord(8, { ...record, facts: { kind: 'eew', areas: [1] } }), null);
    assert.equal(announcedRecord(8, { ...record, format: 'pdf' }), null);
    assert.equal(announcedRecord(8, 'record'), null);
    assert.ok(announcedRecord(8, record), 'the record itself is taken');
  });
});

for (const kind of ['postgres', 'redis'] as const)
  describe(`${kind} bus: another process commits, this one holds what its notice carries without a read`, () => {
    const skip = busSkip(kind);
    let database: TestDatabase;
    let ingestDb: Db;
    let ingestBus: Bus;
    let db: Db;
    let bus: Bus;
    let reads: CountedDb['reads'];
    let cache: TelegramCache;
    let stopCache: () => Promise<void>;
    /** Per serial announced here: whether the cache held it when a later subscriber heard the notice. */
    const heldAtNotice = new Map<number, boolean>();
    let received = Date.parse('2026-03-11T00:00:00.000Z');

    before(async () => {
      if (skip) return;
      database = await createTestDatabase();
      const databaseUrl = database.databaseUrl!;
      ingestDb = await openDb({ databaseUrl, dataDir: database.dataDir, poolSize: 2 });
      ingestBus = await openBus({ bus: kind, databaseUrl, redisUrl });
      ({ db, reads } = await openCountingCacheReads(database));
      bus = await openBus({ bus: kind, databaseUrl, redisUrl });
      ({ cache, stop: stopCache } = await TelegramCache.start(db, bus, {
        maxItems: 5000,
        maxBytes: 1024 ** 3,
      }));
      // Subscribed after the cache, as the real-time delivery and the webhook queuer are.
      await busCodecs.telegram.subscribe(bus, ({ serial }) => heldAtNotice.set(serial, !!cache.get(serial)));
    });
    after(async () => {
      if (skip) return;
      await stopCache();
      await bus.close();
      await ingestBus.close();
      await db.close();
      await ingestDb.close();
      await database.drop();
    });

    it(
      'every fixture of the four folders: early warnings held at their notice, all equal to the store',
      { skip },
      async () => {
        const files = [...fixtureIndex().map((e) => e.path), ...allRestXmlFixtures()];
        const serials: number[] = [];
        const eews: number[] = [];
        reads.count = 0;
        for (const path of files) {
          // What came before is held (a telegram that follows one still being read is read too).
          const last = serials.at(-1) ?? 0;
          await waitFor(() => cache.newestSerial >= last, { interval: 2, message: `serial ${last} held` });
          const outcome = await ingestTelegram({ db: ingestDb, bus: ingestBus }, readFileSync(path), {
            fileName: basename(path),
            receivedTime: (received += 1000),
          });
          assert.ok(outcome.ok, `${path}: ${!outcome.ok && outcome.reason}`);
          if (outcome.stored.duplicate) continue;
          const mine = [outcome.stored.serial, ...(outcome.converted ? [outcome.converted.serial] : [])];
          serials.push(...mine);
          if (/VXSE4[3-7]/.test(basename(path))) eews.push(...mine);
        }
        await waitFor(() => serials.every((s) => heldAtNotice.has(s) && cache.get(s)), {
          timeout: 30_000,
          message: 'every notice heard',
        });
        assert.ok(eews.length >= 10, `${eews.length} early warnings and their conversions`);
        for (const serial of eews)
          assert.ok(heldAtNotice.get(serial), `early warning ${serial} held at its notice`);
        const carriedCount = serials.filter((s) => heldAtNotice.get(s)).length;
        // Most telegrams fit; what did not was read, in fewer reads than telegrams.
        assert.ok(carriedCount > serials.length / 2, `${carriedCount} of ${serials.length} carried`);
        assert.ok(carriedCount < serials.length, 'some telegrams are too long for a notice');
        assert.ok(reads.count <= serials.length - carriedCount, `${reads.count} reads`);
        for (const serial of serials) {
          const stored = await loadTelegram(db, serial);
          assert.ok(stored);
          assert.equal(asText(cache.get(serial)!), asText(stored), `serial ${serial}`);
        }
      },
    );
  });
