import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { listEarthquakeEvents } from '../../src/gd/earthquake-store.ts';
import { listEewRecords } from '../../src/gd/eew.ts';
import { ingestInOrder, ingestTelegram, type IngestOutcome } from '../../src/telegrams/ingest.ts';
import type { PreparePool } from '../../src/telegrams/prepare-pool.ts';
import type { IngestHints } from '../../src/telegrams/prepare.ts';
import { bulkFixtures, RECEIVED, startedPool } from '../support/bulk-fixtures.ts';
import { createTestDatabase } from '../support/database.ts';
import { engineFree } from '../support/engine.ts';

const fixtures = bulkFixtures();
/** Every fixture, then one of them again (a duplicate) and bytes that are no telegram (a rejection). */
const items = [
  ...fixtures,
  fixtures[0]!,
  { raw: Buffer.from('<Report>'), hints: { receivedTime: RECEIVED } },
];

/** The pool's worker started (again: it stops after 10 s without work). */
const started = (pool?: PreparePool) => startedPool(fixtures[0]!, pool);

/** Runs `fn` on a fresh database, closed and dropped afterwards whatever happens. */
async function withFreshDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const t = await createTestDatabase();
  const db = await openDb({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, poolSize: 2 });
  try {
    return await fn(db);
  } finally {
    await db.close();
    await t.drop();
  }
}

/** What a database holds after an ingest: every telegram row and both projections. */
async function contents(db: Db) {
  return {
    telegrams: await db.query(
      `SELECT serial, id, raw_digest, type, format, received_time, original_id, schema_type, schema_version,
         encode(body, 'base64') AS body FROM telegrams ORDER BY serial`,
    ),
    earthquakes: await listEarthquakeEvents(db, { limit: 100 }),
    eew: await listEewRecords(db, { limit: 100 }),
  };
}

const summary = (o: IngestOutcome) =>
  o.ok
    ? { serial: o.stored.serial, duplicate: o.stored.duplicate, converted: o.converted?.serial ?? null }
    : { reason: o.reason };

describe('bulk ingest in prepare workers', () => {
  let pool: PreparePool;
  before(async () => {
    pool = await started();
  });
  after(() => pool.close());

  it('stores, converts and projects the same telegrams in the same order as ingesting one at a time', async () => {
    await withFreshDb(async (oneDb) =>
      withFreshDb(async (bulkDb) => {
        const bus = createMemoryBus();
        const oneByOne: IngestOutcome[] = [];
        for (const { raw, hints } of items)
          oneByOne.push(await ingestTelegram({ db: oneDb, bus }, raw, hints));

        // The worker stops after 10 s without work: the ingest one at a time may have taken longer.
        await started(pool);
        let inWorkers = 0;
        const counting = {
          size: pool.size,
          prepare: (raw: Buffer, hints: IngestHints, compress?: boolean) => {
            const prepared = pool.prepare(raw, hints, compress);
            if (prepared) inWorkers++;
            return prepared;
          },
        };
        const outcomes: IngestOutcome[] = [];
        await ingestInOrder(
          { db: bulkDb, bus },
          items,
          (outcome, index) => {
            assert.equal(index, outcomes.length, 'outcomes come in order');
            outcomes.push(outcome);
          },
          counting,
        );

        assert.equal(inWorkers, items.length, 'every telegram was prepared in the worker');
        assert.deepEqual(outcomes.map(summary), oneByOne.map(summary));
        const again = outcomes.at(-2)!;
        assert.ok(again.ok && again.stored.duplicate);
        assert.equal(outcomes.at(-1)!.ok, false);
        const stored = await contents(bulkDb);
        assert.ok(stored.telegrams.length > fixtures.length, 'conversions were stored');
        assert.ok(
          stored.earthquakes.items.length > 0 && stored.eew.items.length > 0,
          'both projections were fed',
        );
        assert.deepEqual(stored, await contents(oneDb));
        await bus.close();
      }),
    );
  });

  it(
    'compresses telegrams itself while it waits for the worker, and stores them all',
    engineFree,
    async () => {
      // A worker whose telegrams come back 10 ms apart: this thread then mostly waits, so after the
      // first read-ahead it asks for telegrams read and converted only.
      const batch = fixtures.slice(0, 80);
      const asked: boolean[] = [];
      let previous: Promise<unknown> = Promise.resolve();
      const slow = {
        size: pool.size,
        prepare: (raw: Buffer, hints: IngestHints, compress = true) => {
          asked.push(compress);
          const prepared = pool.prepare(raw, hints, compress)!;
          const delivered = previous.then(() => prepared).then(async (r) => (await delay(10), r));
          previous = delivered;
          return delivered;
        },
      };
      const outcomes: IngestOutcome[] = [];
      await withFreshDb(async (db) => {
        // Started once the database is there: a worker idle for 10 s stops (a slow database creation).
        await started(pool);
        await ingestInOrder({ db, bus: createMemoryBus() }, batch, (o) => outcomes.push(o), slow);
      });
      assert.deepEqual(asked.slice(0, 64), new Array(64).fill(true), 'the first read-ahead, before any wait');
      assert.ok(asked.slice(64).includes(false), 'compressed here once it waited');
      assert.deepEqual(
        outcomes.map((o) => o.ok && !o.stored.duplicate),
        batch.map(() => true),
      );
    },
  );

  it('reads ahead at most 64 telegrams per worker and 16 MiB', engineFree, async () => {
    await withFreshDb(async (db) => {
      const largest = fixtures.reduce((a, b) => (b.raw.length > a.raw.length ? b : a));
      // Small telegrams are bounded by count, the largest (over 500 KB each) by bytes; the copies
      // of the largest are stored as duplicates.
      const batch = [...fixtures.slice(0, 150), ...Array.from({ length: 60 }, () => largest)];
      let stored = 0;
      const given: number[] = [];
      let most = { telegrams: 0, bytes: 0 };
      const watching = {
        size: pool.size,
        prepare: (raw: Buffer, hints: IngestHints, compress?: boolean) => {
          given.push(raw.length);
          const inFlight = given.slice(stored);
          most = {
            telegrams: Math.max(most.telegrams, inFlight.length),
            bytes: Math.max(
              most.bytes,
              inFlight.reduce((n, b) => n + b, 0),
            ),
          };
          return pool.prepare(raw, hints, compress);
        },
      };
      await ingestInOrder({ db, bus: createMemoryBus() }, batch, () => stored++, watching);
      assert.equal(stored, batch.length);
      // In flight: those read ahead, the one being stored and the one just read.
      assert.ok(most.telegrams > 32 && most.telegrams <= 64 * pool.size + 2, `${most.telegrams} telegrams`);
      assert.ok(most.bytes <= 16 * 1024 * 1024 + 2 * largest.raw.length, `${most.bytes} bytes`);
    });
  });

  it('prepares on this thread what a worker fails to', engineFree, async () => {
    await withFreshDb(async (db) => {
      const failing = { size: 1, prepare: () => Promise.reject(new Error('worker gone')) };
      const outcomes: IngestOutcome[] = [];
      await ingestInOrder(
        { db, bus: createMemoryBus() },
        fixtures.slice(0, 40),
        (o) => outcomes.push(o),
        failing,
      );
      assert.equal(outcomes.length, 40);
      assert.ok(outcomes.every((o) => o.ok && !o.stored.duplicate));
    });
  });

  it(
    'a failure reading the telegrams ends the ingest once the one being stored is stored',
    engineFree,
    async () => {
      await withFreshDb(async (db) => {
        // More telegrams than bulk ingest reads ahead, so that some are stored before the failure.
        function* unreadableAfter100() {
          yield* fixtures.slice(0, 100);
          throw new Error('unreadable file');
        }
        const outcomes: IngestOutcome[] = [];
        await assert.rejects(
          ingestInOrder({ db, bus: createMemoryBus() }, unreadableAfter100(), (o) => outcomes.push(o), pool),
          /unreadable file/,
        );
        const [xml] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM telegrams WHERE format = 'xml'`,
        );
        assert.ok(outcomes.length > 0, 'telegrams read before the failure were stored');
        assert.equal(xml!.n, outcomes.length, 'every stored telegram had its outcome reported');
      });
    },
  );
});
