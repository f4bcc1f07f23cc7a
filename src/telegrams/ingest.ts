import { busCodecs } from '../bus/codecs.ts';
import type { Bus } from '../bus/types.ts';
import { converterFor } from '../conversion/registry.ts';
import type { SchemaRef } from '../conversion/types.ts';
import type { Db } from '../db/types.ts';
import { entersGdProjection, recordGdReport } from '../gd/projections.ts';
import type { Logger } from '../log.ts';
import { prepareConversion, type PreparedConversion } from './conversion.ts';
import { prepareTelegram, type IngestHints, type PreparedTelegram } from './prepare.ts';
import { findStored, storeTelegram, storeTelegramWithConversion, type StoredTelegram } from './store.ts';

/** A conversion that was attempted and failed: the XML was stored and delivered without it. */
export interface ConversionFailure {
  schema: SchemaRef;
  reason: string;
}

export type IngestOutcome =
  | {
      ok: true;
      stored: StoredTelegram;
      /** The JSON conversion stored with it (absent for duplicates and types without a converter). */
      converted?: StoredTelegram & { schema: SchemaRef };
      conversionFailure?: ConversionFailure;
      /** The data type of a newly stored XML telegram for which no converter exists. */
      withoutConverter?: string;
    }
  | { ok: false; reason: string };

/** `log`, when given, hears of announcements that failed (the telegram is stored all the same). */
type Deps = { db: Db; bus: Bus; log?: Logger };

/** A telegram ready to store, with its conversion already computed (CPU work done before any I/O). */
type Ready =
  | { ok: true; telegram: PreparedTelegram; conversion: PreparedConversion | null }
  | { ok: false; reason: string };

/**
 * The ingest pipeline every source uses: prepare (parse, classify, identify, convert), store the
 * telegram and its JSON conversion in one transaction, and after COMMIT announce the new serials on
 * the bus. Invalid input stores nothing; a failed conversion never fails the XML (docs/conversion.md).
 */
export async function ingestTelegram(deps: Deps, raw: Buffer, hints: IngestHints): Promise<IngestOutcome> {
  return commit(deps, prepare(raw, hints));
}

/**
 * Ingests telegrams in order, preparing the next one while the previous one is being stored, so the
 * CPU work of parsing and converting overlaps the database round trip. Calls `done` with each
 * outcome, in order.
 */
export async function ingestInOrder(
  deps: Deps,
  items: Iterable<{ raw: Buffer; hints: IngestHints }>,
  done: (outcome: IngestOutcome, index: number) => void,
): Promise<void> {
  let pending: Promise<IngestOutcome> | undefined;
  let index = 0;
  for (const item of items) {
    const ready = prepare(item.raw, item.hints);
    if (pending) done(await pending, index++);
    pending = commit(deps, ready);
  }
  if (pending) done(await pending, index);
}

function prepare(raw: Buffer, hints: IngestHints): Ready {
  const prepared = prepareTelegram(raw, hints);
  if (!prepared.ok) return prepared;
  const conversion =
    prepared.xmlDocument === undefined ? null : prepareConversion(prepared.telegram, prepared.xmlDocument);
  return { ok: true, telegram: prepared.telegram, conversion };
}

async function commit(deps: Deps, ready: Ready): Promise<IngestOutcome> {
  if (!ready.ok) return ready;
  const outcome = await store(deps.db, ready);
  if (!outcome.stored.duplicate) {
    announce(deps, outcome.stored.serial);
    if (outcome.converted) announce(deps, outcome.converted.serial);
  }
  return outcome;
}

/**
 * The announcement only wakes other processes up, so ingest does not wait for it: when the bus is
 * down or slow (a Redis client queues while it reconnects) the telegram is stored and acknowledged
 * all the same, and the healing timers deliver it (docs/realtime.md, "Gap-free delivery").
 */
function announce(deps: Deps, serial: number): void {
  busCodecs.telegram.publish(deps.bus, { serial }).catch((err: unknown) => {
    deps.log?.warn({ err, serial }, 'telegram announcement failed; delivery will pick it up');
  });
}

async function store(db: Db, ready: Ready & { ok: true }): Promise<IngestOutcome & { ok: true }> {
  const { telegram, conversion } = ready;
  try {
    // Nothing to convert: one statement, its own transaction.
    if (conversion === null) {
      const stored = await storeTelegram(db, telegram);
      const { format, head } = telegram;
      return !stored.duplicate && format === 'xml' && !converterFor(head.type)
        ? { ok: true, stored, withoutConverter: head.type }
        : { ok: true, stored };
    }
    if (!conversion.ok) {
      return { ok: true, stored: await storeTelegram(db, telegram), conversionFailure: conversion };
    }
    try {
      return await storeWithConversion(db, telegram, conversion);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw err;
      // The conversion or a projection failed: nothing of that transaction remains. The XML alone
      // is stored after all, so a converter or projection bug never loses a telegram.
      const stored = await storeTelegram(db, telegram);
      return {
        ok: true,
        stored,
        conversionFailure: { schema: conversion.schema, reason: (err as Error).message },
      };
    }
  } catch (err) {
    // Stored concurrently by another process between our snapshot and our lock: a duplicate.
    const existing = (err as { code?: string }).code === '23505' ? await findStored(db, telegram) : null;
    if (!existing) throw err;
    return { ok: true, stored: existing };
  }
}

/**
 * The XML telegram, its JSON conversion and the projections it feeds (earthquake events, early
 * warnings) commit together or not at all. The two telegrams are one statement; a conversion that
 * feeds no projection (most of them) needs nothing else, so that statement is its own transaction
 * and the whole ingest is one round trip, as for a telegram without conversion.
 */
async function storeWithConversion(
  db: Db,
  telegram: PreparedTelegram,
  conversion: PreparedConversion & { ok: true },
): Promise<IngestOutcome & { ok: true }> {
  const projection = {
    type: telegram.head.type,
    document: conversion.document,
    test: telegram.head.test,
  };
  const done = ({ stored, converted }: { stored: StoredTelegram; converted?: StoredTelegram }) =>
    converted
      ? { ok: true as const, stored, converted: { ...converted, schema: conversion.schema } }
      : { ok: true as const, stored };
  if (!entersGdProjection(projection)) {
    return done(await storeTelegramWithConversion(db, telegram, conversion.telegram));
  }
  return db.tx(async (q) => {
    const outcome = await storeTelegramWithConversion(q, telegram, conversion.telegram);
    const { converted } = outcome;
    if (converted) {
      await recordGdReport(q, {
        ...projection,
        telegram: { serial: converted.serial, id: converted.id, receivedTime: telegram.receivedTime },
      });
    }
    return done(outcome);
  });
}
