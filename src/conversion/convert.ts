import { converterFor } from './registry.ts';
import type { ConvertedDocument, SchemaRef } from './types.ts';
import { compileChecksInBackground, schemaViolation } from './validate.ts';
import { parseXmlElement, type XmlElement } from './xml-element.ts';

export type ConversionOutcome =
  | { ok: true; schema: SchemaRef; document: ConvertedDocument }
  | { ok: false; schema: SchemaRef; reason: string };

/**
 * Converts one XML telegram to its JSON document and checks it against the schema package.
 * Returns null when the type has no converter or the converter declines the telegram; a failure
 * (the converter threw, or the document breaks the schema) is an outcome, never an exception, so
 * that it can never fail the ingest of the XML itself. `xml` is the document's text, or the document
 * already parsed (ingest parses it once for Control/Head and the conversion).
 */
export function convertTelegram(
  xml: string | XmlElement,
  type: string,
  originalId: string,
): ConversionOutcome | null {
  const converter = converterFor(type);
  if (!converter) return null;
  let document: ConvertedDocument | null;
  try {
    document = converter.convert({
      report: typeof xml === 'string' ? parseXmlElement(xml) : xml,
      type,
      originalId,
    });
  } catch (err) {
    return { ok: false, schema: converter.schema, reason: `converter failed: ${(err as Error).message}` };
  }
  if (document === null) return null;
  const violation = schemaViolation(converter.schema, document);
  if (violation !== null) return { ok: false, schema: converter.schema, reason: `schema: ${violation}` };
  return { ok: true, schema: converter.schema, document };
}

/**
 * Compiles in a thread of its own the schema checks of the telegrams of `types` (validate.ts), so
 * that the first of them this process converts does not wait for its check (an early warning's
 * about 0.1 s). Types without a converter are left out. Resolves with the schema keys compiled.
 */
export function compileSchemaChecks(types: readonly string[]): Promise<string[]> {
  return compileChecksInBackground(types.flatMap((type) => converterFor(type)?.schema ?? []));
}
