import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { openDb } from '../../src/db/open.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { KEPT_PAYLOAD_BYTES, PayloadBuilder } from '../../src/webhooks/payload.ts';
import { createTestDatabase } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 1024 * 1024;

/** The heap and the buffers outside it, once garbage is collected. */
function heldMemory(): number {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

// The builder keeps the last telegrams it prepared for deliveries; a telegram may be as large as
// NAMAZU_MAX_TELEGRAM_BYTES, so it keeps them within a byte budget (docs/operations.md "Memory").
test('the webhook payload builder keeps prepared telegrams within its byte budget', async () => {
  const database = await createTestDatabase();
  const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 2 });
  const bus = createMemoryBus();
  try {
    const source = readFileSync(fixture('official', '44_01_01_151008_VFVO51.xml'), 'utf8');
    const serials: number[] = [];
    for (let i = 0; i < 12; i++) {
      // 3 MiB of hex, which compresses to about half: a message of some 5 MB (body and xmlReport).
      const headline = randomBytes((3 * MiB) / 2).toString('hex');
      const xml = source.replace(
        /<Headline>\s*<Text>[\s\S]*?<\/Text>/,
        `<Headline>\n<Text>${headline}</Text>`,
      );
      const outcome = await ingestTelegram({ db, bus }, Buffer.from(xml), { receivedTime: Date.now() });
      assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
      serials.push(outcome.stored.serial);
    }
    const builder = new PayloadBuilder(db, 'test-node');
    const before = heldMemory();
    for (const serial of serials) {
      const message = await builder.payloadFor(serial, 'namazu', 'ja');
      assert.ok(message && message.body.length > 1_000_000, `serial ${serial}`);
      await builder.payloadFor(serial, 'discord', 'ja');
      assert.ok(builder.heldBytes <= KEPT_PAYLOAD_BYTES, `${builder.heldBytes} bytes counted`);
    }
    const grown = heldMemory() - before;
    assert.ok(grown <= KEPT_PAYLOAD_BYTES, `memory grew by ${(grown / MiB).toFixed(1)} MiB`);
    // The newest is still kept: asked again, it is the same message, not made again.
    const last = serials.at(-1)!;
    const again = await builder.payloadFor(last, 'namazu', 'ja');
    assert.equal(again!.body, (await builder.payloadFor(last, 'namazu', 'ja'))!.body);
  } finally {
    await bus.close();
    await db.close();
    await database.drop();
  }
});
