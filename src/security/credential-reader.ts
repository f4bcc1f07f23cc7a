/**
 * The one reader of the `Authorization` header (RFC 9110 §11.6.2): the data API, the OAuth
 * endpoints that authenticate clients and `/metrics` all read a credential here, and each decides
 * what a credential of each scheme means to it and how to refuse one. A header holds exactly one
 * credential: `<scheme> <credentials>`, the scheme matched case-insensitively.
 */

export type Scheme = 'Basic' | 'Bearer' | 'DPoP';

export type Credential =
  | { scheme: 'Bearer'; token: string }
  | { scheme: 'DPoP'; token: string }
  /** RFC 7617, with user and password form-decoded as RFC 6749 §2.3.1 asks of client credentials. */
  | { scheme: 'Basic'; user: string; password: string };

/**
 * What a header says: its scheme (null: one no surface accepts, or none at all) and its credential
 * (null: missing or malformed, e.g. Basic that is not strict base64 of `user:password`).
 */
export interface CredentialReading {
  scheme: Scheme | null;
  credential: Credential | null;
}

const SCHEMES: ReadonlyMap<string, Scheme> = new Map([
  ['basic', 'Basic'],
  ['bearer', 'Bearer'],
  ['dpop', 'DPoP'],
]);
/** Padded or not, but nothing outside the base64 alphabet (Node's decoder would skip it silently). */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** Far above any id and secret this service issues; longer Basic credentials are refused unread. */
const MAX_BASIC_LENGTH = 4096;

/** RFC 6749 Appendix B: form-urlencoding, so `+` is a space and `%XX` a byte of UTF-8. */
function formDecode(part: string): string | undefined {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** `base64(user ":" password)` with a non-empty user, or undefined. */
function basic(encoded: string): Credential | null {
  if (encoded.length > MAX_BASIC_LENGTH || !BASE64.test(encoded)) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  const user = formDecode(decoded.slice(0, colon));
  const password = formDecode(decoded.slice(colon + 1));
  if (user === undefined || password === undefined) return null;
  return { scheme: 'Basic', user, password };
}

/**
 * What authorizationOf gives for a request that repeats `Authorization`: a value no scheme reads,
 * so a surface that does not look for it still refuses it as a header it cannot read.
 */
export const REPEATED_AUTHORIZATION = 'repeated Authorization header';

/**
 * A request's `Authorization` field, from its raw header list; undefined when absent. The field is
 * not a list (RFC 9110 §5.3): Node's `headers` keeps the first of several, where a proxy in front
 * may have checked another, so a request that repeats it gets REPEATED_AUTHORIZATION instead.
 */
export function authorizationOf(rawHeaders: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (found !== undefined) return REPEATED_AUTHORIZATION;
    found = rawHeaders[i + 1]!;
  }
  return found;
}

/** Reads the credential of one `Authorization` header value. */
export function readCredential(header: string): CredentialReading {
  const space = header.indexOf(' ');
  const scheme = SCHEMES.get((space === -1 ? header : header.slice(0, space)).toLowerCase());
  if (scheme === undefined) return { scheme: null, credential: null };
  const rest = space === -1 ? '' : header.slice(space + 1).trim();
  if (scheme === 'Basic') return { scheme, credential: basic(rest) };
  if (rest === '') return { scheme, credential: null };
  return { scheme, credential: { scheme, token: rest } };
}
