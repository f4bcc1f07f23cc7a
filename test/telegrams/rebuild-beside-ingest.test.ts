// `namazu convert --rebuild` beside a running ingest (PostgreSQL, where they run at once): while the
// rebuild's transaction holds the projections it empties, a telegram that enters a projection waits
// for it, and nothing else does (telegrams/ingest.ts, gd/projections.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createMemoryBus } from '../../src/bus/memory.ts';
import type { Db } from '../../src/db/types.ts';
import { clearGdProjections } from '../../src/gd/projections.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { openTestDb, testDatabaseUrl } from '../support/database.ts';
import { fixtureIndex } from '../support/fixtures.ts';
import { heldTransaction, lockWaiters } from '../support/races.ts';

const received = Date.parse('2026-03-11T00:00:00.000Z');

describe(
  'ingest beside a rebuild of the projections',
  { skip: !testDatabaseUrl && 'PostgreSQL only (NAMAZU_TEST_DATABASE_URL)' },
  () => {
    let db: Db;
    let closeDb: () => Promise<void>;

    before(async () => ({ db, close: closeDb } = await openTestDb()));
    after(() => closeDb());

    it('an earthquake report waits for the rebuild; a telegram behind it does not', async () => {
      const deps = { db, bus: createMemoryBus() };
      const report = fixtureIndex().find((e) => e.file === '32-35_01_03_100514_VXSE53.xml')!;
      // The rebuild's transaction after its first step, reading the stored conversions.
      const rebuild = heldTransaction(db, (q) => clearGdProjections(q));
      await rebuild.started;
      try {
        const waiting = ingestTelegram(deps, readFileSync(report.path), {
          fileName: report.file,
          receivedTime: received,
        });
        await lockWaiters(db, 1);
        const other = await Promise.race([
          ingestTelegram(deps, Buffer.from('SMJP01 RJTD 120000\r\r\nAAXX 12001 47401 11450=\r\r\n'), {
            receivedTime: received,
          }),
          new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3000)),
        ]);
        assert.ok(other !== 'waited' && other.ok && !other.stored.duplicate, 'stored while the rebuild runs');
        rebuild.release();
        const outcome = await waiting;
        assert.ok(outcome.ok && outcome.converted, 'stored with its conversion once the rebuild ends');
        const [events] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM gd_earthquake_events');
        assert.equal(events!.n, 1);
      } finally {
        rebuild.release();
        await rebuild.done;
      }
    });
  },
);
