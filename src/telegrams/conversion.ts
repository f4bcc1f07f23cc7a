import { gzipSync } from 'node:zlib';
import { convertTelegram } from '../conversion/convert.ts';
import type { SchemaRef } from '../conversion/types.ts';
import type { XmlElement } from '../conversion/xml-element.ts';
import { entersGdProjection } from '../gd/projections.ts';
import type { ProjectionSource } from '../gd/types.ts';
import type { TelegramHead } from './record.ts';
import { sha384, type PreparedTelegram } from './prepare.ts';

/**
 * The JSON conversion of an XML telegram serialised, all but its first member. Every document starts
 * with `_originalId` (conversion/head.ts), the id of the XML, which is known only once the XML is
 * compressed; converting need not wait for that (bulk ingest converts in a worker while the storing
 * thread compresses: docs/telegrams.md, "Bulk ingest"). packConversion puts the id in front.
 */
export type ConversionText =
  | {
      ok: true;
      schema: SchemaRef;
      /** The serialised document after `{"_originalId":"…",`. */
      afterOriginalId: string;
      /** Set when the document feeds a projection (earthquake events, early warnings). */
      projection: ProjectionSource | null;
    }
  | { ok: false; schema: SchemaRef; reason: string };

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
 * Converts an XML telegram (docs/conversion.md) and serialises the document without its
 * `_originalId`. The converter runs with `standInId` as the original id: the XML's id where it is
 * known, any other id-like string before (ingest passes the raw digest). Pure: no I/O. Null when the
 * type has no converter; a failure is returned, never thrown. Only a document that feeds a projection
 * is kept (as `projection`): the others are needed as text only.
 */
export function convertToText(
  head: TelegramHead,
  document: string | XmlElement,
  standInId: string,
): ConversionText | null {
  const outcome = convertTelegram(document, head.type, standInId);
  if (outcome === null || !outcome.ok) return outcome;
  const json = JSON.stringify(outcome.document);
  const lead = `{"_originalId":${JSON.stringify(standInId)},`;
  if (!json.startsWith(lead)) {
    return { ok: false, schema: outcome.schema, reason: 'document does not start with _originalId' };
  }
  const source: ProjectionSource = { type: head.type, document: outcome.document, test: head.test };
  return {
    ok: true,
    schema: outcome.schema,
    afterOriginalId: json.slice(lead.length),
    projection: entersGdProjection(source) ? source : null,
  };
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
    },
  };
}

/** The JSON conversion of an XML telegram whose id is known, ready to store. */
export function prepareConversion(
  xml: PreparedTelegram,
  document: string | XmlElement,
): PreparedConversion | null {
  const text = convertToText(xml.head, document, xml.id);
  return text === null ? null : packConversion(xml, text);
}
