import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { createPostgresBus } from '../../src/bus/postgres.ts';
import { channels, type Bus } from '../../src/bus/types.ts';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { TelegramCache } from '../../src/telegrams/cache.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { prepareTelegram } from '../../src/telegrams/prepare.ts';
import type { TelegramFormat } from '../../src/telegrams/record.ts';
import { loadTelegram, queryTelegrams, type TelegramQuery } from '../../src/telegrams/store.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../support/database.ts';
import { fixtureIndex } from '../support/fixtures.ts';
import { waitFor } from '../support/wait.ts';

const received = Date.parse('2026-03-11T00:00:00.000Z');

describe('ingest pipeline over every fixture (in-process bus)', () => ingestSuite('memory'));

// On PostgreSQL's bus the storing statement announces its own rows, sent at its COMMIT.
describe(
  'ingest pipeline over every fixture (PostgreSQL bus)',
  { skip: !testDatabaseUrl && 'PostgreSQL only (NAMAZU_TEST_DATABASE_URL)' },
  () => ingestSuite('postgres'),
);

function ingestSuite(busKind: 'memory' | 'postgres') {
  let database: TestDatabase;
  let db: Db;
  let bus: Bus;
  const announced: number[] = [];
  /** Channels ingest published on after COMMIT. */
  const published: string[] = [];
  const index = fixtureIndex();

  before(async () => {
    database = await createTestDatabase();
    db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 4 });
    const opened =
      busKind === 'postgres' ? await createPostgresBus(database.databaseUrl!) : createMemoryBus();
    bus = {
      ...opened,
      publish: (channel, payload) => (published.push(channel), opened.publish(channel, payload)),
    };
    await bus.subscribe(channels.telegram, (payload) =>
      announced.push((JSON.parse(payload) as { serial: number }).serial),
    );
  });
  after(async () => {
    await bus.close();
    await db.close();
    await database.drop();
  });

  const ingestAll = async () => {
    const results = [];
    for (const [i, entry] of index.entries()) {
      const raw = readFileSync(entry.path);
      const outcome = await ingestTelegram({ db, bus }, raw, {
        fileName: entry.file,
        receivedTime: received + i * 1000,
      });
      assert.ok(outcome.ok, `${entry.file}: ${!outcome.ok && outcome.reason}`);
      results.push(outcome);
    }
    return results;
  };

  it('stores every file once, with strictly increasing serials, announced after commit', async () => {
    const outcomes = await ingestAll();
    const stored = outcomes.map((o) => o.stored);
    assert.equal(stored.filter((s) => !s.duplicate).length, index.length);
    // Each XML telegram with a converter is followed by its JSON conversion, in the same commit.
    const serials = outcomes.flatMap((o) => [o.stored.serial, ...(o.converted ? [o.converted.serial] : [])]);
    for (const o of outcomes) if (o.converted) assert.equal(o.converted.serial, o.stored.serial + 1);
    assert.ok(outcomes.some((o) => o.converted));
    assert.deepEqual(
      serials,
      [...serials].sort((a, b) => a - b),
    );
    assert.equal(new Set(serials).size, serials.length);
    await waitFor(() => announced.length >= serials.length, { message: 'the announcements' });
    assert.deepEqual(announced, serials);
    assert.deepEqual(published, busKind === 'postgres' ? [] : serials.map(() => channels.telegram));
    // An announced serial is readable at once: the announcement came after COMMIT.
    const rec = await loadTelegram(db, serials[0]!);
    assert.equal(rec?.head.type, index[0]!.type);
  });

  it('re-ingesting stores nothing new and announces nothing', async () => {
    const before = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telegrams');
    announced.length = 0;
    const again = await ingestAll();
    assert.ok(again.every((o) => o.stored.duplicate && o.converted === undefined));
    const afterCount = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telegrams');
    assert.equal(afterCount[0]!.n, before[0]!.n);
    // The bus delivers in order: once a marker published now arrives, any announcement of the
    // re-ingest would have arrived before it.
    await bus.publish(channels.telegram, JSON.stringify({ serial: 0 }));
    await waitFor(() => announced.length > 0, { message: 'the marker' });
    assert.deepEqual(announced, [0], 'nothing announced before the marker');
  });

  it('a stored telegram reads back exactly as prepared', async () => {
    const entry = index.find((e) => e.file === '32-35_06_06_100915_VXSE53.xml')!;
    const raw = readFileSync(entry.path);
    const prepared = prepareTelegram(raw, { fileName: basename(entry.path), receivedTime: received });
    assert.ok(prepared.ok);
    const row = await db.query<{ serial: number }>('SELECT serial FROM telegrams WHERE id = $1', [
      prepared.telegram.id,
    ]);
    const rec = await loadTelegram(db, row[0]!.serial);
    assert.ok(rec);
    assert.deepEqual(rec.body, prepared.telegram.body);
    assert.deepEqual(rec.xmlReport, prepared.telegram.xmlReport);
    assert.deepEqual(rec.head, prepared.telegram.head);
    assert.equal(rec.classification, 'telegram.earthquake');
    assert.equal(rec.compression, 'gzip');
  });

  it('the same telegram ingested concurrently is stored once', async () => {
    const raw = Buffer.from('SMJP01 RJTD 120000\r\r\nAAXX 12001 47401 11450=\r\r\n');
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => ingestTelegram({ db, bus }, raw, { receivedTime: received })),
    );
    const stored = outcomes.map((o) => (o.ok ? o.stored : assert.fail('rejected')));
    assert.equal(stored.filter((s) => !s.duplicate).length, 1);
    assert.equal(new Set(stored.map((s) => s.serial)).size, 1);
  });

  it('a rejected telegram stores nothing', async () => {
    const count = async () =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telegrams'))[0]!.n;
    const n = await count();
    const outcome = await ingestTelegram({ db, bus }, Buffer.from('<Report><Control/></Report>'), {
      receivedTime: received,
    });
    assert.equal(outcome.ok, false);
    assert.equal(await count(), n);
  });

  it('the cache answers exactly what the database answers, and follows new ingests', async () => {
    const { cache, stop } = await TelegramCache.start(db, bus, { maxItems: 120 });
    try {
      const classes = [...new Set(index.map((e) => e.classification))];
      const formats: TelegramFormat[] = ['xml', 'a/n', 'binary', 'json'];
      const arbWindow = fc.oneof(
        fc.record({ before: fc.integer({ min: 1, max: 400 }) }),
        fc.record({ after: fc.integer({ min: 0, max: 400 }) }),
      );
      const arbQueryWith = (window: fc.Arbitrary<{ before?: number; after?: number }>) =>
        fc.record({
          classifications: fc.subarray(classes, { minLength: 1 }),
          types: fc.option(
            fc.oneof(
              fc.record({ prefix: fc.constantFrom('V', 'VX', 'VXSE', 'VXSE5', 'VTSE41', 'VPWW', 'VF') }),
              fc.record({
                exact: fc.subarray(['VXSE53', 'VXSE51', 'VTSE41', 'VPWW54', 'VFVO50', 'VGSK50'], {
                  minLength: 1,
                }),
              }),
            ),
            { nil: undefined },
          ),
          test: fc.constantFrom('no' as const, 'including' as const, 'only' as const),
          formats: fc.option(fc.subarray(formats, { minLength: 1 }), { nil: undefined }),
          // Seconds from the first fixture's reception; fixtures arrive one second apart.
          receivedFrom: fc.option(fc.integer({ min: -5, max: index.length + 5 }), { nil: undefined }),
          receivedBefore: fc.option(fc.integer({ min: -5, max: index.length + 5 }), { nil: undefined }),
          window: fc.option(window, { nil: undefined }),
          limit: fc.integer({ min: 1, max: 30 }),
        });
      const at = (seconds: number | undefined) =>
        seconds === undefined ? undefined : new Date(received + seconds * 1000);
      const numRuns = 150;
      /** Runs the property on `held`; counts the runs it answered and the fields that narrowed them. */
      const compareWithDatabase = async (held: TelegramCache, window = arbWindow) => {
        let compared = 0;
        const narrowed = new Set<string>();
        await fc.assert(
          fc.asyncProperty(
            arbQueryWith(window),
            async ({ window, receivedFrom, receivedBefore, ...rest }) => {
              const q: TelegramQuery = {
                ...rest,
                ...(window ?? {}),
                receivedFrom: at(receivedFrom),
                receivedBefore: at(receivedBefore),
              };
              const fromCache = held.query(q);
              if (fromCache === undefined) return; // outside the held window: the database answers
              const fromDb = await queryTelegrams(db, q);
              assert.deepEqual(
                fromCache.map((t) => t.serial),
                fromDb.map((t) => t.serial),
              );
              compared++;
              if (fromDb.length > 0)
                for (const field of ['types', 'formats', 'receivedFrom', 'receivedBefore', 'before', 'after'])
                  if (q[field as keyof TelegramQuery] !== undefined) narrowed.add(field);
            },
          ),
          { numRuns },
        );
        return { compared, narrowed: [...narrowed].sort() };
      };
      // A cache holding every telegram answers every query.
      const whole = await TelegramCache.start(db, bus, { maxItems: 10_000 });
      try {
        const { compared, narrowed } = await compareWithDatabase(whole.cache);
        assert.equal(compared, numRuns, 'every run compared');
        assert.deepEqual(
          narrowed,
          ['after', 'before', 'formats', 'receivedBefore', 'receivedFrom', 'types'],
          'every filter field was compared on a non-empty answer',
        );
      } finally {
        await whole.stop();
      }
      // The cache holding the newest 120 answers what its range covers and leaves the rest: polling
      // with `after` around the oldest held serial lands on both sides of that edge.
      const newestHeld = cache.newestSerial;
      const partial = await compareWithDatabase(
        cache,
        fc.record({ after: fc.integer({ min: newestHeld - 160, max: newestHeld }) }),
      );
      assert.ok(
        partial.compared > 0 && partial.compared < numRuns,
        `compared ${partial.compared} of ${numRuns} runs`,
      );
      // A first page of everything is always answerable from memory.
      assert.ok(cache.query({ classifications: classes, test: 'including', limit: 20 }));

      const newest = cache.newestSerial;
      const raw = Buffer.from('SMJP01 RJTD 110000\r\r\nAAXX 11001 47401 11450=\r\r\n');
      const outcome = await ingestTelegram({ db, bus, telegrams: cache }, raw, { receivedTime: received });
      assert.ok(outcome.ok);
      const [rec] = await cache.after(newest, 1);
      assert.equal(rec?.format, 'a/n');
      assert.equal(cache.newestSerial, outcome.stored.serial);
      assert.ok(newest < outcome.stored.serial);
      assert.deepEqual(
        cache
          .query({ classifications: ['telegram.observation'], test: 'no', after: newest, limit: 5 })!
          .map((t) => t.serial),
        [outcome.stored.serial],
      );
    } finally {
      await stop();
    }
  });

  it('this process hears its own commit once, held already; another hears it at COMMIT', async () => {
    const { cache, stop } = await TelegramCache.start(db, bus);
    const heldWhenHeard: boolean[] = [];
    const heardElsewhere: number[] = [];
    const unsubscribe = await bus.subscribe(channels.telegram, (payload) => {
      const { serial } = JSON.parse(payload) as { serial: number };
      heldWhenHeard.push(cache.holds(serial));
    });
    // Another process's bus on the same database.
    const other = busKind === 'postgres' ? await createPostgresBus(database.databaseUrl!) : bus;
    await other.subscribe(channels.telegram, (payload) =>
      heardElsewhere.push((JSON.parse(payload) as { serial: number }).serial),
    );
    try {
      const eew = readFileSync(index.find((e) => e.type === 'VXSE45')!.path);
      const serials: number[] = [];
      for (let i = 0; i < 40; i++) {
        const raw = Buffer.concat([eew, Buffer.from(`<!-- heard ${i} -->`)]);
        const outcome = await ingestTelegram({ db, bus, telegrams: cache }, raw, {
          receivedTime: received + i,
        });
        assert.ok(outcome.ok && !outcome.stored.duplicate && outcome.converted);
        serials.push(outcome.stored.serial, outcome.converted.serial);
      }
      await waitFor(() => heardElsewhere.filter((s) => serials.includes(s)).length >= serials.length, {
        message: 'the announcements',
      });
      // On PostgreSQL's bus the notice sent at COMMIT often arrives before the statement's answer:
      // this process's bus drops its own and ingest hands the message over once the cache holds it.
      assert.deepEqual(
        heldWhenHeard,
        serials.map(() => true),
      );
      assert.deepEqual(
        heardElsewhere.filter((s) => serials.includes(s)),
        serials,
      );
    } finally {
      await unsubscribe();
      if (other !== bus) await other.close();
      await stop();
    }
  });
}
