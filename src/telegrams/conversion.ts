import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { convertTelegram } from '../conversion/convert.ts';
import type { SchemaRef } from '../conversion/types.ts';
import type { XmlElement } from '../conversion/xml-element.ts';
import { entersGdProjection } from '../gd/projections.ts';
import type { ProjectionSource } from '../gd/types.ts';
import type { PreparedTelegram } from './prepare.ts';

export type PreparedConversion =
  | {
      ok: true;
      schema: SchemaRef;
      telegram: PreparedTelegram;
      /** Set when the document feeds a projection (earthquake events, early warnings). */
      projection: ProjectionSource | null;
    }
  | { ok: false; schema: SchemaRef; reason: string };

const sha384 = (b: Buffer | string) => createHash('sha384').update(b).digest('hex');

/**
 * The JSON conversion of an XML telegram as a telegram of its own (docs/conversion.md): the
 * document gzip-compressed, its id the SHA-384 of those bytes, `_originalId` and `originalId` the
 * XML's id; classification, head (not `xml`), reception time and Control/Head as the XML's.
 * Pure: no I/O. Null when the type has no converter; a failure is returned, never thrown. Only a
 * document that feeds a projection is kept (as `projection`): the others are needed as bytes only.
 */
export function prepareConversion(
  xml: PreparedTelegram,
  document: string | XmlElement,
): PreparedConversion | null {
  const outcome = convertTelegram(document, xml.head.type, xml.id);
  if (outcome === null || !outcome.ok) return outcome;
  // The fastest level: converting is part of every ingest, and documents are small (level 6 saves
  // about a tenth of their bytes for twice the time; docs/conversion.md, "Speed").
  const body = gzipSync(Buffer.from(JSON.stringify(outcome.document)), { level: 1 });
  const source: ProjectionSource = {
    type: xml.head.type,
    document: outcome.document,
    test: xml.head.test,
  };
  return {
    ok: true,
    schema: outcome.schema,
    projection: entersGdProjection(source) ? source : null,
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
      conversion: { schema: outcome.schema, originalId: xml.id },
    },
  };
}
