// Cutting text to a service's limit (docs/webhooks.md, "Limits"): at the limit, the end is replaced
// by an ellipsis, and a cut never splits a UTF-16 surrogate pair (an emoji or a rare kanji).

const ELLIPSIS = '…';

/** The longest start of `text` within `max` UTF-16 code units that ends on a whole character. */
function startWithin(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1; // a high surrogate without its pair
  return text.slice(0, end);
}

/**
 * `text` within `max` UTF-16 code units (what JavaScript's `length` counts; never fewer than the
 * characters the services count): unchanged when it fits, else cut and ended with "…".
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < ELLIPSIS.length) return startWithin(text, max);
  return startWithin(text, max - ELLIPSIS.length).trimEnd() + ELLIPSIS;
}

/** `text` within `maxBytes` bytes of UTF-8, cut on a whole character and ended with "…". */
export function clipBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const budget = maxBytes - Buffer.byteLength(ELLIPSIS);
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > budget) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end).trimEnd() + ELLIPSIS;
}
