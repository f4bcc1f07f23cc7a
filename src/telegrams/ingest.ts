import { channels, type Bus } from '../bus/types.ts';
import type { Db } from '../db/types.ts';
import { prepareTelegram, type IngestHints } from './prepare.ts';
import { findStored, storeTelegram, type StoredTelegram } from './store.ts';

export type IngestOutcome = { ok: true; stored: StoredTelegram } | { ok: false; reason: string };

/**
 * The ingest pipeline every source uses: prepare (parse, classify, identify), store in one
 * transaction (one statement), and after COMMIT announce the new serial on the bus. Invalid input stores nothing.
 */
export async function ingestTelegram(
  deps: { db: Db; bus: Bus },
  raw: Buffer,
  hints: IngestHints,
): Promise<IngestOutcome> {
  const prepared = prepareTelegram(raw, hints);
  if (!prepared.ok) return prepared;
  let stored: StoredTelegram;
  try {
    stored = await storeTelegram(deps.db, prepared.telegram);
  } catch (err) {
    // Stored concurrently by another process between our snapshot and our lock: a duplicate.
    const existing =
      (err as { code?: string }).code === '23505' ? await findStored(deps.db, prepared.telegram) : null;
    if (!existing) throw err;
    stored = existing;
  }
  if (!stored.duplicate) await deps.bus.publish(channels.telegram, JSON.stringify({ serial: stored.serial }));
  return { ok: true, stored };
}
