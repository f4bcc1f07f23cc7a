import { converterFor } from './registry.ts';
import type { ConvertedDocument, SchemaRef } from './types.ts';
import { schemaViolation } from './validate.ts';
import { parseXmlElement } from './xml-element.ts';

export type ConversionOutcome =
  | { ok: true; schema: SchemaRef; document: ConvertedDocument }
  | { ok: false; schema: SchemaRef; reason: string };

/**
 * Converts one XML telegram to its JSON document and checks it against the schema package.
 * Returns null when the type has no converter or the converter declines the telegram; a failure
 * (the converter threw, or the document breaks the schema) is an outcome, never an exception, so
 * that it can never fail the ingest of the XML itself.
 */
export function convertTelegram(xml: string, type: string, originalId: string): ConversionOutcome | null {
  const converter = converterFor(type);
  if (!converter) return null;
  let document: ConvertedDocument | null;
  try {
    document = converter.convert({ report: parseXmlElement(xml), type, originalId });
  } catch (err) {
    return { ok: false, schema: converter.schema, reason: `converter failed: ${(err as Error).message}` };
  }
  if (document === null) return null;
  const violation = schemaViolation(converter.schema, document);
  if (violation !== null) return { ok: false, schema: converter.schema, reason: `schema: ${violation}` };
  return { ok: true, schema: converter.schema, document };
}
