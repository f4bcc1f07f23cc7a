import { SaxesParser } from 'saxes';

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

/** Deepest element nesting accepted in any telegram (JMA XML stays well under 20). */
export const MAX_XML_DEPTH = 48;

/** A local name: the part after a namespace prefix (`jmx_eb:Coordinate` → `Coordinate`). */
const localName = (name: string) => name.slice(name.indexOf(':') + 1);

interface OpenElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * Parses a whole JMA XML document into its root element (`Report`), strictly: a document that is
 * not well-formed, or has a DOCTYPE, or nests deeper than MAX_XML_DEPTH, throws. One pass with a
 * streaming parser (saxes); entities are the five predefined ones and character references only.
 */
export function parseXmlElement(xml: string): XmlElement {
  const parser = new SaxesParser();
  const stack: OpenElement[] = [];
  let root: XmlElement | undefined;
  parser.on('doctype', () => {
    throw new Error('XML with a DOCTYPE');
  });
  parser.on('opentag', (tag) => {
    if (stack.length >= MAX_XML_DEPTH) throw new Error(`XML nested deeper than ${MAX_XML_DEPTH} elements`);
    const attrs: Record<string, string> = {};
    for (const [name, value] of Object.entries(tag.attributes as Record<string, string>)) {
      // Namespace declarations are not data.
      if (name !== 'xmlns' && !name.startsWith('xmlns:')) attrs[localName(name)] = value;
    }
    stack.push({ name: localName(tag.name), attrs, children: [], text: '' });
  });
  const addText = (text: string) => {
    const open = stack.at(-1);
    if (open) open.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const open = stack.pop()!;
    // Whitespace between child elements is layout, not text.
    const text = open.children.length > 0 && open.text.trim() === '' ? '' : open.text;
    const element = new XmlElement(open.name, open.attrs, open.children, text);
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else root = element;
  });
  parser.write(xml).close();
  if (!root) throw new Error('XML document without a root element');
  return root;
}
