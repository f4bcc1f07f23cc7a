import { gunzipSync } from 'node:zlib';
import { convertTelegram } from '../conversion/convert.ts';
import { convertibleTypes } from '../conversion/registry.ts';
import type { Queryable } from '../db/types.ts';
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
 * declines are not failures and are left out.
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
    const xml = (record.compression === 'gzip' ? gunzipSync(record.body) : record.body).toString('utf8');
    const outcome = convertTelegram(xml, record.head.type, record.id);
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
