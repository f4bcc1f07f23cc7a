import { XMLParser } from 'fast-xml-parser';
import { decodeText, MAX_XML_DEPTH } from '../telegrams/xml.ts';

/**
 * One element of a JMA XML document as converters read it: the local name (namespace prefix
 * removed, so `jmx_eb:Coordinate` is `Coordinate`), the attributes verbatim (entities decoded), the
 * child elements in document order, and the text. Text is kept as written (not trimmed): some
 * conversions reproduce leading spaces; converters trim where the JSON schema wants it.
 */
export class XmlElement {
  constructor(
    readonly name: string,
    readonly attrs: Readonly<Record<string, string>>,
    readonly children: readonly XmlElement[],
    /** Concatenated character data directly inside this element ('' when none). */
    readonly text: string,
  ) {}

  /** The first child element with this local name. */
  child(name: string): XmlElement | undefined {
    return this.children.find((c) => c.name === name);
  }

  /** Every child element with this local name, in document order. */
  all(name: string): XmlElement[] {
    return this.children.filter((c) => c.name === name);
  }

  /** The element at a slash-separated path of local names below this one (first match at each step). */
  at(path: string): XmlElement | undefined {
    return path.split('/').reduce<XmlElement | undefined>((node, step) => node?.child(step), this);
  }

  /** Every element matching the path's last step below the first match of the steps before it. */
  allAt(path: string): XmlElement[] {
    const slash = path.lastIndexOf('/');
    if (slash === -1) return this.all(path);
    return this.at(path.slice(0, slash))?.all(path.slice(slash + 1)) ?? [];
  }

  /** Text of the element at `path`, or undefined when the element is absent. */
  textAt(path: string): string | undefined {
    return this.at(path)?.text;
  }

  attr(name: string): string | undefined {
    return this.attrs[name];
  }
}

const ATTRIBUTES = ':@';
const TEXT = '#text';

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // No DTD, no entity expansion: ingest has already refused DOCTYPE; predefined entities and
  // character references are decoded by decodeText.
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
  maxNestedTags: MAX_XML_DEPTH,
});

type OrderedNode = { [key: string]: OrderedNode[] | string | Record<string, string> };

/**
 * Parses a whole JMA XML document (already checked by ingest: size, UTF-8, no DOCTYPE,
 * well-formed) into its root element (`Report`).
 */
export function parseXmlElement(xml: string): XmlElement {
  const nodes = parser.parse(xml) as OrderedNode[];
  for (const node of nodes) {
    const element = toElement(node);
    if (element) return element;
  }
  throw new Error('XML document without a root element');
}

function toElement(node: OrderedNode): XmlElement | undefined {
  let name: string | undefined;
  for (const key of Object.keys(node)) {
    if (key !== ATTRIBUTES && key !== TEXT) name = key;
  }
  if (name === undefined) return undefined;
  const rawAttrs = (node[ATTRIBUTES] as Record<string, string> | undefined) ?? {};
  const attrs: Record<string, string> = {};
  for (const [key, value] of Object.entries(rawAttrs)) {
    // Namespace declarations are not data.
    if (key === 'xmlns' || key.startsWith('xmlns:')) continue;
    attrs[key] = decodeText(value);
  }
  const children: XmlElement[] = [];
  let text = '';
  for (const part of node[name] as OrderedNode[]) {
    if (TEXT in part) text += String(part[TEXT]);
    else {
      const child = toElement(part);
      if (child) children.push(child);
    }
  }
  // Whitespace between child elements is layout, not text.
  if (children.length > 0 && text.trim() === '') text = '';
  return new XmlElement(name, attrs, children, decodeText(text));
}
