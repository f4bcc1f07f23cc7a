import type { XmlElement } from './xml-element.ts';

/** A fixed-phrase comment as the schemas write it: the phrases' text and their codes. */
export interface CodedComment {
  text: string;
  codes: string[];
}

/**
 * A JMA coded comment (`WarningComment`, `ForecastComment`, `VarComment`): `Text` trimmed (the
 * phrases stay separated by the XML's own line breaks) and `Code` split on white space (one code
 * per fixed phrase). Undefined when the element is absent or holds neither text nor codes.
 */
export function convertCodedComment(element: XmlElement | undefined): CodedComment | undefined {
  if (!element) return undefined;
  const text = element.child('Text')?.text.trim() ?? '';
  const codes = (element.child('Code')?.text ?? '').split(/\s+/u).filter(Boolean);
  if (text === '' && codes.length === 0) return undefined;
  return { text, codes };
}
