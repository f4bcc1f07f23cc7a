// Ingest when the database goes away under it (a restart, a failover): the telegram is not stored
// half, without its JSON conversion, as a converter's own failure would have it stored; the ingest
// fails, and the source's retry stores the telegram and its conversion (telegrams/ingest.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts';
import type { Db } from '../../src/db/types.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { openTestDb, testDatabaseUrl } from '../support/database.ts';
import { fixtureIndex } from '../support/fixtures.ts';
import { heldTransaction, lockWaiters } from '../support/races.ts';

/** store.ts's INGEST_LOCK_KEY: held here, an ingest's statement waits for it. */
const INGEST_LOCK_KEY = 7_262_420_040;

describe(
  'ingest when its connection to the database is cut',
  { skip: !testDatabaseUrl && 'PostgreSQL only (NAMAZU_TEST_DATABASE_URL)' },
  () => {
    let db: Db;
    let closeDb: () => Promise<void>;

    before(async () => ({ db, close: closeDb } = await openTestDb()));
    after(() => closeDb());

    for (const type of ['VXSE53', 'VPWW54']) {
      it(`a ${type} whose statement is cut fails, stores nothing, and is stored with its conversion when retried`, async () => {
        const entry = fixtureIndex().find((e) => e.type === type)!;
        const raw = readFileSync(entry.path);
        const deps = { db, bus: createMemoryBus() };
        const hints = { fileName: entry.file, receivedTime: Date.parse('2026-03-11T00:00:00.000Z') };
        const held = heldTransaction(db, (q) =>
          q.query('SELECT pg_advisory_xact_lock($1)', [INGEST_LOCK_KEY]),
        );
        await held.started;
        const ingesting = ingestTelegram(deps, raw, hints).then(
          (outcome) => ({ outcome }),
          (err: unknown) => ({ err }),
        );
        await lockWaiters(db, 1);
        // The server ends the session of the waiting statement, as a restart does.
        await db.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO telegrams%'`,
        );
        // Whatever the ingest does next runs once the lock is free.
        setTimeout(() => held.release(), 300);
        await held.done;
        const result = await ingesting;
        assert.ok(
          'err' in result,
          `the ingest fails: ${JSON.stringify('outcome' in result && result.outcome)}`,
        );
        assert.ok(isDatabaseUnavailable(result.err), String(result.err));
        const count = async () =>
          (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telegrams'))[0]!.n;
        const before = await count();
        const retried = await ingestTelegram(deps, raw, hints);
        assert.ok(retried.ok && !retried.stored.duplicate && retried.converted && !retried.conversionFailure);
        assert.equal(await count(), before + 2);
      });
    }
  },
);
