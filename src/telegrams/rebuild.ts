import { gunzipSync } from 'node:zlib';
import type { TelegramJSONMain } from '@dmdata/telegram-json-types';
import type { Db, Queryable } from '../db/types.ts';
import { rebuildGdProjections } from '../gd/projections.ts';
import type { ProjectionInput } from '../gd/types.ts';
import { prepareConversion } from './prepare.ts';
import type { ConversionFailure } from './ingest.ts';
import { loadConversionOf, loadTelegramsAfter, storeTelegram } from './store.ts';

export interface RebuildReport {
  /** Conversions added for XML telegrams that had none (new serials). */
  added: number;
  /** Stored conversions whose document changed: replaced in place (same serial, new id). */
  replaced: number;
  unchanged: number;
  failed: (ConversionFailure & { id: string })[];
  /** Documents that entered each projection when it was rebuilt from the stored conversions. */
  projections: { earthquake: number; eew: number };
}

const BATCH = 200;

/**
 * Re-derives the JSON conversion of every stored XML telegram with today's converters, then the
 * earthquake and early-warning projections from the stored conversions (docs/conversion.md,
 * "Rebuilding"). Idempotent: a second run changes nothing. The XML telegrams and unchanged
 * conversions keep their ids and serials; nothing is announced on the bus.
 */
export async function rebuildConversions(db: Db): Promise<RebuildReport> {
  const report: RebuildReport = {
    added: 0,
    replaced: 0,
    unchanged: 0,
    failed: [],
    projections: { earthquake: 0, eew: 0 },
  };
  for (let after = 0; ;) {
    const batch = await loadTelegramsAfter(db, after, BATCH);
    for (const t of batch) {
      if (t.format !== 'xml') continue;
      const text = (t.compression === 'gzip' ? gunzipSync(t.body) : t.body).toString('utf8');
      const conversion = prepareConversion({ ...t, rawDigest: '' }, text.replace(/^\uFEFF/, ''));
      if (conversion === null) continue;
      if (!conversion.ok) {
        report.failed.push({ id: t.id, schema: conversion.schema, reason: conversion.reason });
        continue;
      }
      const converted = conversion.telegram;
      const existing = await loadConversionOf(db, t.id);
      if (!existing) {
        await storeTelegram(db, converted);
        report.added++;
      } else if (existing.id === converted.id || sameDocument(existing.body, converted.body)) {
        report.unchanged++;
      } else {
        await db.query(
          `UPDATE telegrams SET id = $1, body = $2, schema_type = $3, schema_version = $4
           WHERE serial = $5`,
          [converted.id, converted.body, conversion.schema.type, conversion.schema.version, existing.serial],
        );
        report.replaced++;
      }
    }
    if (batch.length < BATCH) break;
    after = batch.at(-1)!.serial;
  }
  // In one transaction, so readers never see a half-built projection.
  report.projections = await db.tx((q) => rebuildGdProjections(q, storedConversions(q)));
  return report;
}

/**
 * Whether a stored conversion holds the same document as a fresh one, however each was compressed:
 * an unchanged document keeps its id even when the compression settings have changed since.
 */
function sameDocument(stored: Buffer, fresh: Buffer): boolean {
  try {
    return gunzipSync(stored).equals(gunzipSync(fresh));
  } catch {
    return false; // not a gzip stream: not what a conversion stores
  }
}

/** Every stored JSON conversion as a projection input, in serial order. */
async function* storedConversions(q: Queryable): AsyncGenerator<ProjectionInput<TelegramJSONMain>> {
  for (let after = 0; ;) {
    const batch = await loadTelegramsAfter(q, after, BATCH);
    for (const t of batch) {
      if (t.format !== 'json') continue;
      yield {
        type: t.head.type,
        document: JSON.parse(gunzipSync(t.body).toString('utf8')) as TelegramJSONMain,
        telegram: { serial: t.serial, id: t.id, receivedTime: t.receivedTime },
        test: t.head.test,
      };
    }
    if (batch.length < BATCH) return;
    after = batch.at(-1)!.serial;
  }
}
