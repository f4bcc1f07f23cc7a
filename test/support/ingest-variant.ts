/** Stores a telegram again as a new one: its bytes and a comment of their own (a telegram is its bytes). */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import type { TestServer } from './server.ts';

/** Ingests a fresh variant of `xml` now; its serial. */
export async function ingestVariant(server: TestServer, xml: Buffer): Promise<number> {
  const raw = Buffer.concat([xml, Buffer.from(`\n<!-- variant ${randomUUID()} -->\n`)]);
  const out = await ingestTelegram(server.ctx, raw, { receivedTime: Date.now() });
  assert.ok(out.ok, JSON.stringify(out));
  return out.stored.serial;
}
