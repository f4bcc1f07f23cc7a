/** Minimal cookie reading and writing for the web pages (RFC 6265). */

/** Cookie name → value of a Cookie header; the first occurrence of a name wins. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  secure: boolean;
}

/** A Set-Cookie value: always HttpOnly, SameSite=Lax and Path=/; Secure on https origins. */
export function serializeCookie(name: string, value: string, opts: CookieOptions): string {
  return `${name}=${value}; Path=/; Max-Age=${opts.maxAge}; HttpOnly; SameSite=Lax${opts.secure ? '; Secure' : ''}`;
}
