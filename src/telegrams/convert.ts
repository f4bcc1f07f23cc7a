// The step of preparing a telegram (prepare.ts) that converts its XML to the JSON document.
import { convertTelegram } from '../conversion/convert.ts';
import type { SchemaRef } from '../conversion/types.ts';
import type { XmlElement } from '../conversion/xml-element.ts';
import { entersGdProjection } from '../gd/projections.ts';
import type { ProjectionSource } from '../gd/types.ts';
import type { TelegramHead } from './record.ts';

/**
 * The JSON conversion of an XML telegram serialised, all but its first member. Every document starts
 * with `_originalId` (conversion/head.ts), the id of the XML, which is known only once the XML is
 * compressed; converting need not wait for that (bulk ingest converts in a worker while the storing
 * thread compresses: docs/telegrams.md, "Bulk ingest"). packConversion (identify.ts) puts the id in front.
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
