import type { XmlElement } from './xml-element.ts';

/** A fixed-phrase comment of the JSON schemas: its sentences and their code-table codes. */
export interface CodedComment {
  text: string;
  codes: string[];
}

/**
 * A JMA fixed-phrase comment (`ForecastComment`, `VarComment`, `WarningComment`, codeType
 * 固定付加文): `Text` as written (several sentences are already separated by line feeds), `Code`
 * split on white space (`0212 0241` → `["0212", "0241"]`). Undefined when the element is absent.
 */
export function convertCodedComment(element: XmlElement | undefined): CodedComment | undefined {
  if (!element) return undefined;
  return {
    text: element.child('Text')?.text ?? '',
    codes: (element.child('Code')?.text ?? '').split(/\s+/u).filter(Boolean),
  };
}
