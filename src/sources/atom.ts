import { SaxesParser } from 'saxes';
import { CodedError } from '../errors.ts';

/** One entry of an Atom feed: what the JMA feed source needs of it. */
export interface AtomEntry {
  /** atom:id, the entry's identity (JMA uses the XML's URL). */
  id: string;
  /** atom:updated (ISO 8601), as written. */
  updated: string;
  /** The href of the entry's link: where its XML is. */
  link: string;
}

export class AtomRejected extends CodedError {
  constructor(message: string) {
    super('ATOM_REJECTED', { message });
  }
}

const MAX_DEPTH = 16;

/**
 * The entries of an Atom document, in document order (JMA lists the newest first). Strict: a
 * document that is not well-formed XML, has a DOCTYPE, is not an Atom `feed`, or has an entry
 * without id or link throws AtomRejected, so a broken or truncated document changes nothing.
 */
export function parseAtom(text: string): AtomEntry[] {
  const parser = new SaxesParser({ xmlns: false });
  const path: string[] = [];
  const entries: AtomEntry[] = [];
  let entry: Partial<AtomEntry> | null = null;
  let textOf = '';
  const local = (name: string) => name.slice(name.indexOf(':') + 1);
  parser.on('doctype', () => {
    throw new AtomRejected('Atom document with a DOCTYPE');
  });
  parser.on('opentag', (tag) => {
    const name = local(tag.name);
    if (path.length === 0 && name !== 'feed') throw new AtomRejected(`not an Atom feed (root <${tag.name}>)`);
    if (path.length >= MAX_DEPTH) throw new AtomRejected(`Atom nested deeper than ${MAX_DEPTH} elements`);
    path.push(name);
    textOf = '';
    if (path.length === 2 && name === 'entry') entry = {};
    if (entry && path.length === 3 && name === 'link') {
      const attrs = tag.attributes as Record<string, string>;
      const rel = attrs.rel ?? 'alternate';
      if (rel === 'alternate' && attrs.href && entry.link === undefined) entry.link = attrs.href;
    }
  });
  parser.on('text', (t) => (textOf += t));
  parser.on('cdata', (t) => (textOf += t));
  parser.on('closetag', () => {
    const name = path.pop()!;
    if (entry && path.length === 2 && (name === 'id' || name === 'updated')) entry[name] = textOf.trim();
    if (entry && path.length === 1 && name === 'entry') {
      const { id, link, updated } = entry;
      if (!id || !link) throw new AtomRejected('Atom entry without id or link');
      entries.push({ id, link, updated: updated ?? '' });
      entry = null;
    }
  });
  try {
    parser.write(text).close();
  } catch (err) {
    if (err instanceof AtomRejected) throw err;
    throw new AtomRejected(`malformed Atom document: ${(err as Error).message}`);
  }
  if (path.length > 0) throw new AtomRejected('truncated Atom document');
  return entries;
}
