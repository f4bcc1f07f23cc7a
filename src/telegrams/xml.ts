import { isUtf8 } from 'node:buffer';
import { parseXmlElement, type XmlElement } from '../conversion/xml-element.ts';

export class XmlRejected extends Error {}

/**
 * Parses JMA XML safely into the shared element view (docs/conversion.md) that both the ingest
 * (Control/Head) and the JSON conversion read, so the document is parsed once: a depth limit (the
 * size is the telegram's, limited by the ingest: size.ts), no DOCTYPE (so no entity definitions),
 * strict well-formedness of the whole document. Throws XmlRejected with a reason.
 */
export function parseXml(bytes: Buffer): XmlElement {
  if (!isUtf8(bytes)) throw new XmlRejected('XML is not valid UTF-8');
  // A byte order mark is not part of the document.
  const text = bytes.toString('utf8', bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XmlRejected('XML with a DOCTYPE or entity declaration');
  try {
    return parseXmlElement(text);
  } catch (err) {
    throw new XmlRejected(`malformed XML: ${(err as Error).message}`);
  }
}
