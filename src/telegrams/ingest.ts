import { busCodecs } from '../bus/codecs.ts';
import type { Bus } from '../bus/types.ts';
import type { Db } from '../db/types.ts';
import { prepareTelegram, type IngestHints, type Prepared, type PreparedTelegram } from './prepare.ts';
import { findStored, storeTelegram, type StoredTelegram } from './store.ts';

export type IngestOutcome = { ok: true; stored: StoredTelegram } | { ok: false; reason: string };

type Deps = { db: Db; bus: Bus };

/**
 * The ingest pipeline every source uses: prepare (parse, classify, identify), store in one
 * transaction (one statement), and after COMMIT announce the new serial on the bus. Invalid input
 * stores nothing.
 */
export async function ingestTelegram(deps: Deps, raw: Buffer, hints: IngestHints): Promise<IngestOutcome> {
  return commit(deps, prepareTelegram(raw, hints));
}

/**
 * Ingests telegrams in order, preparing the next one while the previous one is being stored, so the
 * CPU work of parsing overlaps the database round trip. Calls `done` with each outcome, in order.
 */
export async function ingestInOrder(
  deps: Deps,
  items: Iterable<{ raw: Buffer; hints: IngestHints }>,
  done: (outcome: IngestOutcome, index: number) => void,
): Promise<void> {
  let pending: Promise<IngestOutcome> | undefined;
  let index = 0;
  for (const item of items) {
    const prepared = prepareTelegram(item.raw, item.hints);
    if (pending) done(await pending, index++);
    pending = commit(deps, prepared);
  }
  if (pending) done(await pending, index);
}

async function commit(deps: Deps, prepared: Prepared): Promise<IngestOutcome> {
  if (!prepared.ok) return prepared;
  const stored = await store(deps.db, prepared.telegram);
  if (!stored.duplicate) await busCodecs.telegram.publish(deps.bus, { serial: stored.serial });
  return { ok: true, stored };
}

async function store(db: Db, telegram: PreparedTelegram): Promise<StoredTelegram> {
  try {
    return await storeTelegram(db, telegram);
  } catch (err) {
    // Stored concurrently by another process between our snapshot and our lock: a duplicate.
    const existing = (err as { code?: string }).code === '23505' ? await findStored(db, telegram) : null;
    if (!existing) throw err;
    return existing;
  }
}
