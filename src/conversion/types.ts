import type { TelegramJSONMain } from '@dmdata/telegram-json-types';
import type { XmlElement } from './xml-element.ts';

/** A JSON schema of the conversion package, as `_schema` and the list/WebSocket `schema` name it. */
export interface SchemaRef {
  type: string;
  version: string;
}

/** What a converter reads: the parsed report, its data type code and the id of the XML telegram. */
export interface ConversionSource {
  /** The document's root element (`Report`). */
  report: XmlElement;
  /** JMA data type code (`VXSE53`), from the transport or the title (docs/telegrams.md). */
  type: string;
  /** id of the source XML telegram; becomes `_originalId`. */
  originalId: string;
}

/** A converted document: the common header, `_schema` and the schema's body. */
export type ConvertedDocument = TelegramJSONMain;

/**
 * One JSON schema's converter: a pure function from the parsed telegram to the document. Returns
 * null when the telegram has no conversion in this schema (the XML is then delivered as XML only).
 */
export interface Converter {
  schema: SchemaRef;
  convert(source: ConversionSource): ConvertedDocument | null;
}
