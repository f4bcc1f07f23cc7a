import { isUtf8 } from 'node:buffer';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { MAX_XML_DEPTH } from '../conversion/xml-element.ts';

/** Largest JMA XML accepted (the biggest real telegrams are about 600 KB). */
export const MAX_XML_BYTES = 2 * 1024 * 1024;

export class XmlRejected extends Error {}

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  // No DTD, no entity expansion: the five predefined entities are decoded by decodeText below.
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: MAX_XML_DEPTH,
  // Only Control and Head are read; the validator has already checked the Body is well-formed.
  stopNodes: ['Report.Body'],
});

/** A parsed element tree: strings for text-only elements, objects (or arrays of them) otherwise. */
export type XmlNode = string | { [name: string]: XmlNode | XmlNode[] };

/**
 * Parses JMA XML safely: size and depth limits, no DOCTYPE (so no entity definitions), strict
 * well-formedness of the whole document (checked without building a tree); the tree returned holds
 * Control and Head only. The depth limit applies to that tree; the validator is iterative, so a
 * deep Body costs time bounded by the size limit, not stack.
 * Throws XmlRejected with a reason.
 */
export function parseXml(bytes: Buffer): Record<string, XmlNode> {
  if (bytes.length > MAX_XML_BYTES) throw new XmlRejected(`XML larger than ${MAX_XML_BYTES} bytes`);
  if (!isUtf8(bytes)) throw new XmlRejected('XML is not valid UTF-8');
  // A byte order mark is not part of the document.
  const text = bytes.toString('utf8', bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XmlRejected('XML with a DOCTYPE or entity declaration');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlRejected(`malformed XML: ${valid.err.msg} (line ${valid.err.line})`);
  // Control and Head come first: parse only up to the end of Head when the document has one (the
  // whole document is known to be well-formed, so the slice closed with </Report> is too).
  const headEnd = text.indexOf('</Head>');
  const part = headEnd === -1 ? text : `${text.slice(0, headEnd + 7)}</Report>`;
  try {
    return parser.parse(part) as Record<string, XmlNode>;
  } catch (err) {
    throw new XmlRejected(`malformed XML: ${(err as Error).message}`);
  }
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes the predefined XML entities and numeric character references of one text value. */
export function decodeText(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return safeCodePoint(parseInt(ref.slice(2), 16)) ?? whole;
    if (ref.startsWith('#')) return safeCodePoint(parseInt(ref.slice(1), 10)) ?? whole;
    return PREDEFINED[ref] ?? whole;
  });
}

function safeCodePoint(n: number): string | undefined {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : undefined;
}
