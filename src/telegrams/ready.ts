import { prepareConversion, type PreparedConversion } from './conversion.ts';
import { prepareTelegram, type IngestHints, type PreparedTelegram } from './prepare.ts';

/** A telegram ready to store, with its conversion already computed (CPU work done before any I/O). */
export type Ready =
  | { ok: true; telegram: PreparedTelegram; conversion: PreparedConversion | null }
  | { ok: false; reason: string };

/**
 * Everything ingest computes before it touches the database (pure: no I/O): parse, classify and
 * identify the telegram, then convert it. Runs on the ingesting thread or in a prepare worker.
 */
export function prepareForIngest(raw: Buffer, hints: IngestHints): Ready {
  const prepared = prepareTelegram(raw, hints);
  if (!prepared.ok) return prepared;
  const conversion =
    prepared.xmlDocument === undefined ? null : prepareConversion(prepared.telegram, prepared.xmlDocument);
  return { ok: true, telegram: prepared.telegram, conversion };
}
