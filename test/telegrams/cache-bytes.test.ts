import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { openDb } from '../../src/db/open.ts';
import { TelegramCache } from '../../src/telegrams/cache.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { summaryBytes } from '../../src/telegrams/summary-bytes.ts';
import { createTestDatabase } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';

const MiB = 1024 * 1024;

// A telegram's body compresses well and says little of what it holds once read: its headline, as
// long as the telegram, is kept as text and serialised beside it. The cache's budget counts both
// (docs/operations.md "Memory").
test('the telegram cache holds telegrams within its byte budget, their summaries counted', async () => {
  const database = await createTestDatabase();
  const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 2 });
  const bus = createMemoryBus();
  const budget = 16 * MiB;
  const { cache, stop } = await TelegramCache.start(db, bus, { maxBytes: budget });
  try {
    const source = readFileSync(fixture('official', '44_01_01_151008_VFVO51.xml'), 'utf8');
    const serials: number[] = [];
    for (let i = 0; i < 8; i++) {
      const xml = source.replace(
        /<Headline>\s*<Text>[\s\S]*?<\/Text>/,
        `<Headline>\n<Text>${'火'.repeat(MiB / 3)}${i}</Text>`,
      );
      const outcome = await ingestTelegram({ db, bus, telegrams: cache }, Buffer.from(xml), {
        receivedTime: Date.now(),
      });
      assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
      serials.push(outcome.stored.serial);
    }
    await cache.refresh();
    const held = serials.map((s) => cache.get(s)).filter((t) => t !== undefined);
    const bytes = held.reduce((sum, t) => sum + t.body.length + summaryBytes(t), 0);
    assert.ok(held.length >= 1 && held.length < serials.length, `${held.length} of ${serials.length} held`);
    assert.ok(bytes <= budget, `${bytes} bytes held`);
    assert.equal(held.at(-1)!.serial, serials.at(-1), 'the newest are kept');
    // What it lets go, lists read from the database: the newest serial is still known.
    assert.ok(cache.newestSerial >= serials.at(-1)!);
  } finally {
    await stop();
    await bus.close();
    await db.close();
    await database.drop();
  }
});
