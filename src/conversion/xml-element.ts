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
    for (const c of this.children) if (c.name === name) return c;
    return undefined;
  }

  /** Every child element with this local name, in document order. */
  all(name: string): XmlElement[] {
    const found: XmlElement[] = [];
    for (const c of this.children) if (c.name === name) found.push(c);
    return found;
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
/** An element's text without surrounding white space; '' when the element is absent. */
export const trimmedText = (element: XmlElement | undefined): string => element?.text.trim() ?? '';

export const MAX_XML_DEPTH = 48;

/** Attributes of an element that has none: one shared frozen object instead of one per element. */
const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/** Children of an element that has none (most elements): one shared frozen array. */
const NO_CHILDREN: readonly XmlElement[] = Object.freeze([]);

/** An element being read. One frame per depth, reused for every element opened at that depth. */
interface OpenElement {
  name: string;
  attrs: Readonly<Record<string, string>>;
  children: XmlElement[] | undefined;
  text: string;
}

/** Whether a string has a character other than XML white space (space, tab, CR, LF). */
function hasContent(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return true;
  }
  return false;
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
  const frames: OpenElement[] = [];
  let depth = 0;
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
  /** The element's attributes by local name, without namespace declarations. */
  const attributesOf = (tagAttrs: Record<string, string>): Readonly<Record<string, string>> => {
    let attrs: Record<string, string> | undefined;
    for (const name in tagAttrs) {
      // Namespace declarations are not data.
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      (attrs ??= {})[localName(name)] = tagAttrs[name]!;
    }
    return attrs ?? NO_ATTRIBUTES;
  };
  parser.on('doctype', () => {
    throw new Error('XML with a DOCTYPE');
  });
  parser.on('opentag', (tag) => {
    if (depth >= MAX_XML_DEPTH) throw new Error(`XML nested deeper than ${MAX_XML_DEPTH} elements`);
    const name = localName(tag.name);
    const attrs = attributesOf(tag.attributes as Record<string, string>);
    open = frames[depth];
    if (open === undefined) frames.push((open = { name, attrs, children: undefined, text: '' }));
    else {
      open.name = name;
      open.attrs = attrs;
      open.children = undefined;
      open.text = '';
    }
    depth++;
  });
  const addText = (text: string) => {
    if (open) open.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const closed = frames[--depth]!;
    const children = closed.children;
    // Whitespace between child elements is layout, not text.
    const text = children !== undefined && !hasContent(closed.text) ? '' : closed.text;
    const element = new XmlElement(closed.name, closed.attrs, children ?? NO_CHILDREN, text);
    open = depth > 0 ? frames[depth - 1] : undefined;
    if (open) (open.children ??= []).push(element);
    else root = element;
  });
  parser.write(xml).close();
  if (!root) throw new Error('XML document without a root element');
  return root;
}
