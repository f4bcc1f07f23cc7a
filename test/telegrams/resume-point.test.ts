/**
 * Where a resuming client starts (src/telegrams/resume-point.ts): the telegram it names, found in
 * this process's telegram cache without a query when held there, else in the store; the same
 * answers either way, and the same bound on how far back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { openDb } from '../../src/db/open.ts';
import type { Queryable } from '../../src/db/types.ts';
import { TelegramCache } from '../../src/telegrams/cache.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { resumeMessages, resumePoint } from '../../src/telegrams/resume-point.ts';
import { createTestDatabase } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';

test('a held telegram is found without a query, an older one in the store; both bounded alike', async () => {
  const database = await createTestDatabase();
  const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 2 });
  const bus = createMemoryBus();
  const { cache, stop } = await TelegramCache.start(db, bus, { maxItems: 4 });
  try {
    const source = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));
    const stored: { id: string; serial: number }[] = [];
    for (let i = 0; i < 4; i++) {
      const raw = Buffer.concat([source, Buffer.from(`\n<!-- resume point ${i} -->\n`)]);
      const outcome = await ingestTelegram({ db, bus, telegrams: cache }, raw, { receivedTime: Date.now() });
      assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
      stored.push({ id: outcome.stored.id, serial: outcome.stored.serial });
    }
    await cache.refresh();
    let queries = 0;
    const counting: Queryable = {
      query: (text, params) => {
        queries += 1;
        return db.query(text, params);
      },
    } as Queryable;
    const at = (i: number, maxBehind: number) =>
      resumePoint(counting, cache, 'after', stored[i]!.id, maxBehind);

    // Each telegram is stored with its JSON conversion: the cache's four are the newest two and
    // theirs. How far back is counted in stored telegrams, conversions included.
    assert.deepEqual(
      stored.map((t) => cache.serialOf(t.id) !== undefined),
      [false, false, true, true],
    );
    const back = (i: number) => cache.newestSerial - stored[i]!.serial;
    // The newest two are held: no query, whatever the answer.
    assert.deepEqual(await at(3, back(3)), { ok: true, serial: stored[3]!.serial });
    assert.deepEqual(await at(2, back(2)), { ok: true, serial: stored[2]!.serial });
    assert.deepEqual(await at(2, back(2) - 1), {
      ok: false,
      reason: 'tooOld',
      message: resumeMessages.tooOld('after', back(2) - 1),
    });
    assert.equal(queries, 0);
    // The oldest two are not held: the store answers, with the same bound.
    assert.deepEqual(await at(1, back(1)), { ok: true, serial: stored[1]!.serial });
    assert.deepEqual(await at(0, back(0) - 1), {
      ok: false,
      reason: 'tooOld',
      message: resumeMessages.tooOld('after', back(0) - 1),
    });
    assert.equal(queries, 2);
    // Unknown, and deleted by retention (the cache forgets it): not stored.
    const unknown = await resumePoint(counting, cache, 'after', 'a'.repeat(96), 10);
    assert.deepEqual(unknown, { ok: false, reason: 'unknown', message: resumeMessages.unknown('after') });
    await db.query('DELETE FROM telegrams WHERE serial = $1', [stored[3]!.serial]);
    cache.forget([stored[3]!.serial]);
    assert.deepEqual(await at(3, 10), {
      ok: false,
      reason: 'unknown',
      message: resumeMessages.unknown('after'),
    });
  } finally {
    await stop();
    await bus.close();
    await db.close();
    await database.drop();
  }
});

test('a bound of 0 (NAMAZU_RESUME_MAX_TELEGRAMS=0) refuses every resume, from the newest telegram too', async () => {
  const database = await createTestDatabase();
  const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 2 });
  const bus = createMemoryBus();
  const { cache, stop } = await TelegramCache.start(db, bus);
  try {
    // A binary telegram: no conversion after it, so it is the newest stored (0 telegrams back).
    const raw = Buffer.from('IXAC41 RJTD 110000\r\r\nBUFR\x00\x01');
    const outcome = await ingestTelegram({ db, bus, telegrams: cache }, raw, { receivedTime: Date.now() });
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    assert.equal(cache.newestSerial, outcome.stored.serial);
    const newest = outcome.stored.id;
    assert.deepEqual(await resumePoint(db, cache, 'after', newest, 1), {
      ok: true,
      serial: outcome.stored.serial,
    });
    // The message of docs/api-contract.md, naming the field the id came in.
    for (const field of ['after', 'Last-Event-ID']) {
      assert.deepEqual(await resumePoint(db, cache, field, newest, 0), {
        ok: false,
        reason: 'off',
        message: `This server does not resume after a telegram (\`${field}\`); read the telegram list.`,
      });
    }
    // A malformed id is still told as such.
    assert.deepEqual(await resumePoint(db, cache, 'after', 'xyz', 0), {
      ok: false,
      reason: 'malformed',
      message: resumeMessages.malformed('after'),
    });
  } finally {
    await stop();
    await bus.close();
    await db.close();
    await database.drop();
  }
});
