import { isUtf8 } from 'node:buffer';
import { parseXmlElement, type XmlElement } from '../conversion/xml-element.ts';
import { CodedError } from '../errors.ts';

export class XmlRejected extends CodedError {
  constructor(message: string) {
    super('XML_REJECTED', { message });
  }
}

/**
 * Parses JMA XML safely into the shared element view (docs/conversion.md) that both the ingest
 * (Control/Head) and the JSON conversion read, so the document is parsed once: a depth limit (the
 * size is the telegram's, limited by the ingest: size.ts), no DOCTYPE (so no entity definitions),
 * strict well-formedness of the whole document. Throws XmlRejected with a reason.
 */
export function parseXml(bytes: Buffer): XmlElement {
  if (!isUtf8(bytes)) throw new XmlRejected('XML is not valid UTF-8');
  return parseXmlText(bytes.toString('utf8', documentStart(bytes)));
}

/**
 * The most bytes read for a document's Control and Head when the rest is not read (parseXmlHead):
 * thirty times what JMA's largest in the sample set takes (its Head ends at byte 33,513).
 */
export const HEAD_READ_BYTES = 1024 * 1024;

/**
 * The document's root with its Control and Head only, checked as parseXml checks a whole document: the
 * text up to the end of the first Head with the root element closed after it, so that the work is
 * bounded whatever follows (prepare.ts `prepareUnconverted`). The rest of the document is not read.
 * Throws XmlRejected when no Head ends within HEAD_READ_BYTES, or that part is not well-formed.
 */
export function parseXmlHead(bytes: Buffer): XmlElement {
  if (!isUtf8(bytes)) throw new XmlRejected('XML is not valid UTF-8');
  const start = documentStart(bytes);
  const text = bytes.toString('utf8', start, Math.min(bytes.length, start + HEAD_READ_BYTES));
  const headEnd = /<\/(?:[^\s<>/:]+:)?Head\s*>/.exec(text);
  const root = /<([^\s<>/?!][^\s<>/]*)/.exec(text);
  if (!headEnd || !root) throw new XmlRejected(`no end of Head within the first ${HEAD_READ_BYTES} bytes`);
  return parseXmlText(`${text.slice(0, headEnd.index + headEnd[0].length)}</${root[1]}>`);
}

/** Where the document starts: a byte order mark is not part of it. */
const documentStart = (bytes: Buffer) =>
  bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;

function parseXmlText(text: string): XmlElement {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XmlRejected('XML with a DOCTYPE or entity declaration');
  try {
    return parseXmlElement(text);
  } catch (err) {
    throw new XmlRejected(`malformed XML: ${(err as Error).message}`);
  }
}
