import type { ConversionSource } from './types.ts';
import type { XmlElement } from './xml-element.ts';

/**
 * An element's free text as JMA wrote it: line breaks and leading full-width spaces are part of the
 * layout the production service keeps (docs/conversion.md, "Free text"). Undefined when the element
 * is absent or holds only white space.
 */
export function writtenText(element: XmlElement | undefined): string | undefined {
  const text = element?.text;
  return text === undefined || text.trim() === '' ? undefined : text;
}

/** Whether the telegram withdraws an earlier one (`Head/InfoType` 取消). */
export function isCancellation(source: ConversionSource): boolean {
  return source.report.textAt('Head/InfoType')?.trim() === '取消';
}

/** The body of a cancellation: the reason from `Body/Text` as written ('' when the XML has none). */
export function cancellationBody(source: ConversionSource): { text: string } {
  return { text: writtenText(source.report.at('Body/Text')) ?? '' };
}

/** `comments: {free}` from `Comments/FreeFormComment` as written; undefined when there is none. */
export function freeFormComments(body: XmlElement | undefined): { free: string } | undefined {
  const free = writtenText(body?.at('Comments/FreeFormComment'));
  return free === undefined ? undefined : { free };
}
