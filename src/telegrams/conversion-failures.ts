import { gunzipSync } from 'node:zlib';
import { convertTelegram } from '../conversion/convert.ts';
import { convertibleTypes, converterFor } from '../conversion/registry.ts';
import type { Queryable } from '../db/types.ts';
import { OFF_LOOP_BYTES } from './size.ts';
import { loadTelegram } from './store.ts';

export interface ConversionFailureItem {
  serial: number;
  id: string;
  type: string;
  receivedTime: string;
  schema: string;
  reason: string;
}

/** XML telegrams looked at, newest first, when listing failures: a bound on the work of one page. */
const SCAN = 2000;

/**
 * The newest XML telegrams whose data type has a converter but that have no JSON conversion
 * stored, each converted again to tell why (docs/conversion.md: a failed conversion never fails
 * the XML). Every ingest path counts: the store itself is the record. Telegrams the converter
 * declines are not failures and are left out. A telegram of OFF_LOOP_BYTES or more is listed without
 * being converted again, which would hold the event loop (a crafted one stored over the time
 * budget, for seconds): its reason is in the log (docs/telegrams.md "Time budget").
 */
export async function recentConversionFailures(
  q: Queryable,
  limit: number,
): Promise<ConversionFailureItem[]> {
  const rows = await q.query<{ serial: number }>(
    `SELECT t.serial FROM (
       SELECT serial, id, type FROM telegrams WHERE format = 'xml' ORDER BY serial DESC LIMIT $1
     ) t
     WHERE t.type = ANY($2::text[])
       AND NOT EXISTS (SELECT 1 FROM telegrams j WHERE j.original_id = t.id)
     ORDER BY t.serial DESC`,
    [SCAN, convertibleTypes()],
  );
  const out: ConversionFailureItem[] = [];
  for (const { serial } of rows) {
    if (out.length >= limit) break;
    const record = await loadTelegram(q, serial);
    if (!record) continue;
    const xml = smallXml(record.compression === 'gzip', record.body);
    const outcome = xml
      ? convertTelegram(xml, record.head.type, record.id)
      : { ok: false as const, schema: converterFor(record.head.type)!.schema, reason: LARGE_REASON };
    if (!outcome || outcome.ok) continue;
    out.push({
      serial,
      id: record.id,
      type: record.head.type,
      receivedTime: record.receivedTime,
      schema: `${outcome.schema.type} ${outcome.schema.version}`,
      reason: outcome.reason,
    });
  }
  return out;
}

const LARGE_REASON = `not converted again here (${OFF_LOOP_BYTES} bytes or more): the log says why`;

/** The XML text of a body under OFF_LOOP_BYTES, or null for a larger one (never decompressed whole). */
function smallXml(gzip: boolean, body: Buffer): string | null {
  try {
    const xml = gzip ? gunzipSync(body, { maxOutputLength: OFF_LOOP_BYTES - 1 }) : body;
    return xml.length < OFF_LOOP_BYTES ? xml.toString('utf8') : null;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return null;
    throw err;
  }
}
