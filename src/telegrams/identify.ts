// The second stage of preparing a telegram (prepare.ts): compress the body read by read.ts and the
// conversion serialised by convert.ts, and give each its id.
import { gzipSync } from 'node:zlib';
import type { SchemaRef } from '../conversion/types.ts';
import type { ProjectionSource } from '../gd/types.ts';
import type { ConversionText } from './convert.ts';
import { sha384, type ReadTelegram } from './read.ts';
import type { TelegramRecord } from './record.ts';

/** A telegram ready to store: everything of a TelegramRecord except its serial. */
export interface PreparedTelegram extends Omit<TelegramRecord, 'serial'> {
  /** SHA-384 hex of the bytes as received (idempotency key). */
  rawDigest: string;
}

export type PreparedConversion =
  | {
      ok: true;
      schema: SchemaRef;
      telegram: PreparedTelegram;
      /** As in ConversionText, with the XML's id as `_originalId`. */
      projection: ProjectionSource | null;
    }
  | { ok: false; schema: SchemaRef; reason: string };

/**
 * The telegram's body as delivered and its id, the SHA-384 of that body. XML is gzip-compressed at
 * level 6, always: the id depends on these bytes, and must be the same on every Namazu server
 * (docs/sources.md, "Identity").
 */
export function identifyTelegram({ payload, ...telegram }: ReadTelegram): PreparedTelegram {
  const body = telegram.compression === 'gzip' ? gzipSync(payload, { level: 6 }) : payload;
  return { ...telegram, id: sha384(body), body };
}

/**
 * The conversion as a telegram of its own: the document, `_originalId` the XML's id, gzip-compressed;
 * its id the SHA-384 of those bytes, `originalId` the XML's id; classification, head (not `xml`),
 * reception time and Control/Head as the XML's. Pure: no I/O.
 */
export function packConversion(xml: PreparedTelegram, text: ConversionText): PreparedConversion {
  if (!text.ok) return text;
  const json = `{"_originalId":${JSON.stringify(xml.id)},${text.afterOriginalId}`;
  // The fastest level: converting is part of every ingest, and documents are small (level 6 saves
  // about a tenth of their bytes for twice the time; docs/conversion.md, "Speed").
  const body = gzipSync(json, { level: 1 });
  const { projection } = text;
  return {
    ok: true,
    schema: text.schema,
    projection: projection && {
      ...projection,
      document: { ...projection.document, _originalId: xml.id },
    },
    telegram: {
      // One conversion per source telegram: the idempotency key is derived from the source's id.
      rawDigest: sha384(`conversion:${xml.id}`),
      id: sha384(body),
      classification: xml.classification,
      head: { ...xml.head, xml: false },
      receivedTime: xml.receivedTime,
      format: 'json',
      xmlReport: xml.xmlReport,
      compression: 'gzip',
      encoding: 'base64',
      body,
      conversion: { schema: text.schema, originalId: xml.id },
      // The conversion is filtered as its XML is.
      ...(xml.facts ? { facts: xml.facts } : {}),
    },
  };
}
