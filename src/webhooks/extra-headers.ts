/**
 * A subscription's own request headers (docs/webhooks.md "Extra request headers"): sent with every
 * attempt and test event, for a receiver behind authentication (an ntfy access token, an API
 * gateway's key) or a format's own options (ntfy's `Click`, `Icon`). Checked once for every way a
 * subscription is made (`POST /v2/webhook`, `PATCH`, the console's form); the values are sealed at
 * rest like the signing secret and never shown again, the names are kept in the clear to be shown.
 */
import type { SecretBox } from '../security/sealed.ts';

export const MAX_EXTRA_HEADERS = 10;
export const MAX_HEADER_NAME_LENGTH = 64;
export const MAX_HEADER_VALUE_LENGTH = 1024;

/** Name and value, in the order given. */
export type ExtraHeaders = [name: string, value: string][];

/**
 * Names Namazu sets itself or HTTP reserves to the connection: a second value would contradict the
 * delivery's own (its body's type and length, the signature) or the connection undici manages.
 */
const ALWAYS_REFUSED = new Set([
  'host',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'user-agent',
]);

/** ntfy's message headers the `ntfy` post sets, with the aliases ntfy reads for each. */
// prettier-ignore
const NTFY_REFUSED = new Set([
  'title', 'x-title', 'ti', 't',
  'priority', 'x-priority', 'prio', 'p',
  'tags', 'x-tags', 'tag', 'ta',
]);

/** An HTTP field name (RFC 9110 §5.1: a token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A field value without the line breaks of a header injection, and ASCII only (RFC 9110 §5.5). */
const VALUE = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;

/** Whether a subscription of `format` may send a header of this name (any case). */
export function headerNameAllowed(name: string, format: string): boolean {
  const lower = name.toLowerCase();
  if (ALWAYS_REFUSED.has(lower) || lower.startsWith('webhook-')) return false;
  return !(format === 'ntfy' && NTFY_REFUSED.has(lower));
}

/** Whether every name may be sent with `format` (a change of format checks the kept ones again). */
export function headerNamesAllowed(names: readonly string[], format: string): boolean {
  return names.every((n) => headerNameAllowed(n, format));
}

/**
 * The headers of an API body's `headers` object (`null`: none), or null when one breaks a rule:
 * more than `MAX_EXTRA_HEADERS`, a name that is not a token or is taken, a name twice in any case,
 * a value empty, too long or outside printable ASCII. Values are trimmed.
 */
export function checkExtraHeaders(
  input: unknown,
  format: string,
): { ok: true; value: ExtraHeaders } | { ok: false } {
  if (input === null || input === undefined) return { ok: true, value: [] };
  if (typeof input !== 'object' || Array.isArray(input)) return { ok: false };
  const entries = Object.entries(input);
  if (entries.length > MAX_EXTRA_HEADERS) return { ok: false };
  const seen = new Set<string>();
  const value: ExtraHeaders = [];
  for (const [name, raw] of entries) {
    const text = typeof raw === 'string' ? raw.trim() : '';
    const lower = name.toLowerCase();
    if (name.length > MAX_HEADER_NAME_LENGTH || !TOKEN.test(name) || seen.has(lower)) return { ok: false };
    if (!headerNameAllowed(name, format)) return { ok: false };
    if (text.length > MAX_HEADER_VALUE_LENGTH || !VALUE.test(text)) return { ok: false };
    seen.add(lower);
    value.push([name, text]);
  }
  return { ok: true, value };
}

/**
 * The console's text of one `Name: value` per line as the API's object; null when a line has no
 * colon or a name is given twice (the rest is checked as the API's body is).
 */
export function headerLines(text: string): Record<string, string> | null {
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const name = line.slice(0, colon).trim();
    if (Object.hasOwn(headers, name)) return null;
    headers[name] = line.slice(colon + 1);
  }
  return headers;
}

/** The headers sealed for the database; null when there are none. */
export function sealHeaders(box: SecretBox, headers: ExtraHeaders): string | null {
  return headers.length === 0 ? null : box.seal(JSON.stringify(headers));
}

/** The opened text of sealed headers as the object of a request's headers. */
export function openedHeaders(text: string): Record<string, string> {
  return Object.fromEntries(JSON.parse(text) as ExtraHeaders);
}
