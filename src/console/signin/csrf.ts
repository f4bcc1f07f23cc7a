import { digestSecret, safeEqual } from '../../security/secrets.ts';

/**
 * CSRF tokens for the HTML forms: an HMAC (server pepper) of what the form's session is bound to —
 * the sign-in session's digest once signed in, or the pre-sign-in cookie before. A cross-site page
 * can neither read the cookie nor compute the HMAC, so it cannot forge the form field.
 */
export function csrfToken(pepper: Buffer, binding: string): string {
  return digestSecret(pepper, `csrf:${binding}`);
}

/** Constant-time check of a submitted token (any non-string, e.g. a repeated field, is rejected). */
export function csrfValid(pepper: Buffer, binding: string, submitted: unknown): boolean {
  return typeof submitted === 'string' && safeEqual(submitted, csrfToken(pepper, binding));
}
