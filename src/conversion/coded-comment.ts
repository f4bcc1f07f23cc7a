import type { XmlElement } from './xml-element.ts';

/** A fixed comment (固定付加文) as the JSON schemas write it: its text and its codes. */
export interface CodedComment {
  text: string;
  codes: string[];
}

/**
 * Fixed comments of one kind (`WarningComment`, `ForecastComment`, `VarComment`) merged into one:
 * texts joined by a line feed, codes in document order (a `Code` element may hold several codes
 * separated by white space). Undefined when the telegram has none.
 */
export function convertCodedComment(comments: readonly XmlElement[]): CodedComment | undefined {
  const texts: string[] = [];
  const codes: string[] = [];
  for (const comment of comments) {
    const text = comment.child('Text')?.text.trim();
    if (text) texts.push(text);
    for (const code of comment.all('Code')) codes.push(...code.text.split(/\s+/u).filter(Boolean));
  }
  if (texts.length === 0 && codes.length === 0) return undefined;
  return { text: texts.join('\n'), codes };
}
