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

/** Attributes of an element that has none: one shared frozen object instead of one per element. */
const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

interface OpenElement {
  name: string;
  attrs: Readonly<Record<string, string>>;
  children: XmlElement[];
  text: string;
}

/**
 * Parses a whole JMA XML document into its root element (`Report`), strictly: a document that is
 * not well-formed, or has a DOCTYPE, or nests deeper than MAX_XML_DEPTH, throws. One pass with a
 * streaming parser (saxes); entities are the five predefined ones and character references only.
 */
export function parseXmlElement(xml: string): XmlElement {
  try {
    // Line/column tracking only serves error messages and costs a check per character: a document
    // is parsed without it, and only a failing one again with it, for a message that says where.
    return parse(xml, false);
  } catch {
    return parse(xml, true);
  }
}

function parse(xml: string, position: boolean): XmlElement {
  const parser = new SaxesParser({ position });
  const stack: OpenElement[] = [];
  let open: OpenElement | undefined;
  let root: XmlElement | undefined;
  // Local names repeat thousands of times in a large telegram: strip each qualified name once.
  const localNames = new Map<string, string>();
  const localName = (name: string) => {
    let local = localNames.get(name);
    if (local === undefined) {
      local = name.slice(name.indexOf(':') + 1);
      localNames.set(name, local);
    }
    return local;
  };
  parser.on('doctype', () => {
    throw new Error('XML with a DOCTYPE');
  });
  parser.on('opentag', (tag) => {
    if (stack.length >= MAX_XML_DEPTH) throw new Error(`XML nested deeper than ${MAX_XML_DEPTH} elements`);
    let attrs: Record<string, string> | undefined;
    const tagAttrs = tag.attributes as Record<string, string>;
    for (const name in tagAttrs) {
      // Namespace declarations are not data.
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      (attrs ??= {})[localName(name)] = tagAttrs[name]!;
    }
    open = { name: localName(tag.name), attrs: attrs ?? NO_ATTRIBUTES, children: [], text: '' };
    stack.push(open);
  });
  const addText = (text: string) => {
    if (open) open.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const closed = stack.pop()!;
    // Whitespace between child elements is layout, not text.
    const text = closed.children.length > 0 && closed.text.trim() === '' ? '' : closed.text;
    const element = new XmlElement(closed.name, closed.attrs, closed.children, text);
    open = stack[stack.length - 1];
    if (open) open.children.push(element);
    else root = element;
  });
  parser.write(xml).close();
  if (!root) throw new Error('XML document without a root element');
  return root;
}
