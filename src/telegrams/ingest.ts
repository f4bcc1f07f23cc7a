import { channels, type Bus } from '../bus/types.ts';
import type { Db } from '../db/types.ts';
import { prepareTelegram, type IngestHints } from './prepare.ts';
import { storeTelegram, type StoredTelegram } from './store.ts';

export type IngestOutcome = { ok: true; stored: StoredTelegram } | { ok: false; reason: string };

/**
 * The ingest pipeline every source uses: prepare (parse, classify, identify), store in one
 * transaction, and after COMMIT announce the new serial on the bus. Invalid input stores nothing.
 */
export async function ingestTelegram(
  deps: { db: Db; bus: Bus },
  raw: Buffer,
  hints: IngestHints,
): Promise<IngestOutcome> {
  const prepared = prepareTelegram(raw, hints);
  if (!prepared.ok) return prepared;
  const stored = await deps.db.tx((q) => storeTelegram(q, prepared.telegram));
  if (!stored.duplicate) await deps.bus.publish(channels.telegram, JSON.stringify({ serial: stored.serial }));
  return { ok: true, stored };
}
