import { gunzipSync } from 'node:zlib';
import type { TelegramRecord } from '../../telegrams/record.ts';

/** Bodies larger than this are not decoded for display (the page says so instead). */
export const MAX_DECODED_BYTES = 4 * 1024 * 1024;

/** The delivered body as bytes a person can read: gzip undone (bounded); null when too large. */
export function decodedBody(record: Pick<TelegramRecord, 'body' | 'compression'>): Buffer | null {
  if (record.compression !== 'gzip') return record.body.length <= MAX_DECODED_BYTES ? record.body : null;
  try {
    return gunzipSync(record.body, { maxOutputLength: MAX_DECODED_BYTES });
  } catch {
    return null;
  }
}

/** The parsed JSON document of a conversion telegram; null for any other telegram or a bad body. */
export function conversionDocument(record: TelegramRecord): Record<string, unknown> | null {
  if (record.format !== 'json') return null;
  const bytes = decodedBody(record);
  if (!bytes) return null;
  try {
    const doc: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
