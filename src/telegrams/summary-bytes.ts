import type { TelegramSummary } from './store.ts';

/** A row's fixed cost: the objects, their slots and the numbers, with room to spare. */
const ROW_BYTES = 1024;
/**
 * Bytes per character of a row's text, counting what is kept with a row while it lives: the text
 * itself (2 bytes a character at most, as a JavaScript string), its list item serialised once per
 * telegram (api/telegram-items.ts: JSON escapes at most double a character of XML text, 2 bytes
 * each) and a page's items as UTF-8 (at most 3 bytes a character, or 2 escaped ones).
 */
const BYTES_PER_CHAR = 2 + 4 + 3;

/**
 * An upper estimate of the memory a telegram's summary holds (body apart), for the caches that keep
 * rows by bytes (docs/operations.md "Memory"): its headline, like every text of its Control/Head,
 * is as long as the telegram lets it be.
 */
export function summaryBytes(t: TelegramSummary): number {
  let chars = 0;
  // Every field but a record's body, which its holder counts as bytes: fields added to a summary
  // later are counted without a change here.
  for (const key in t)
    if (key !== 'body') chars += textLength((t as unknown as Record<string, unknown>)[key]);
  return ROW_BYTES + chars * BYTES_PER_CHAR;
}

/** Characters of the strings of a small record (a Control/Head, a list of area codes), keys included. */
function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 0;
  let chars = 0;
  for (const key in value) chars += key.length + textLength((value as Record<string, unknown>)[key]);
  return chars;
}
