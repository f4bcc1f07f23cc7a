/**
 * Redirect URI matching (docs/oauth.md "Redirect URIs"): exact string
 * comparison, except the loopback rule under which only the port of an `http` loopback URI is
 * ignored. Everything works on the raw strings: a URL parser would normalise away differences
 * (`127.000.000.001`, `HTTP://`, `/../`, `:80`) that must count as mismatches.
 */

/** `localhost`, or an IPv4 address 127.0.0.1–127.255.255.254 in canonical dotted-decimal form. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const m = /^127\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/.exec(host);
  if (!m) return false;
  const [b, c, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (b > 255 || c > 255 || d > 255) return false;
  if (b === 0 && c === 0 && d === 0) return false;
  return !(b === 255 && c === 255 && d === 255);
}

interface LoopbackUri {
  host: string;
  port: string | null;
  /** Everything after the authority: path and query, exactly as written. */
  rest: string;
}

/** Splits an `http://<loopback host>[:port]<rest>` URI; null when the URI is not of that shape. */
export function parseLoopback(uri: string): LoopbackUri | null {
  if (!uri.startsWith('http://') || uri.includes('#')) return null;
  const afterScheme = uri.slice('http://'.length);
  const end = afterScheme.search(/[/?]/);
  const authority = end === -1 ? afterScheme : afterScheme.slice(0, end);
  const rest = end === -1 ? '' : afterScheme.slice(end);
  const colon = authority.indexOf(':');
  const host = colon === -1 ? authority : authority.slice(0, colon);
  const port = colon === -1 ? null : authority.slice(colon + 1);
  if (!isLoopbackHost(host)) return null;
  if (port !== null && !(/^[1-9]\d{0,4}$/.test(port) && Number(port) <= 65535)) return null;
  return { host, port, rest };
}

/**
 * The URI to deliver the authorization response to, or null when none can be determined (the
 * request must then fail without a redirect).
 * - `requested` omitted: allowed only when exactly one URI is registered and it is not a loopback
 *   URI without port (the loopback rule needs `redirect_uri` in the request).
 * - otherwise an exact match with a registered URI, or the loopback rule: both `http`, same
 *   loopback host written the same way, the registered one without port, same path and query.
 */
export function resolveRedirectUri(registered: readonly string[], requested: string | null): string | null {
  if (requested === null) {
    if (registered.length !== 1) return null;
    const only = registered[0]!;
    return parseLoopback(only)?.port === null ? null : only;
  }
  if (registered.includes(requested)) return requested;
  const asked = parseLoopback(requested);
  if (asked === null) return null;
  for (const uri of registered) {
    const reg = parseLoopback(uri);
    if (reg !== null && reg.port === null && reg.host === asked.host && reg.rest === asked.rest) {
      return requested;
    }
  }
  return null;
}

/**
 * The `form-action` CSP source that lets a page's form (or the redirect after it) reach `uri`:
 * its origin for http(s), its scheme for a private-use scheme.
 */
export function redirectSource(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}
