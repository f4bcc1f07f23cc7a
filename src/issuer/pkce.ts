import { createHash } from 'node:crypto';
import { safeEqual } from '../security/secrets.ts';

/** RFC 7636 §4.1: 43–128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export type ChallengeMethod = 'S256' | 'plain';

export function isWellFormedVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

/** The S256 challenge of a verifier: base64url(SHA-256(ASCII(verifier))). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * Outcome of the PKCE check at the token endpoint (docs/oauth.md "Authorization code grant"):
 * - `ok`: no challenge was stored and no verifier sent, or the verifier matches.
 * - `downgrade`: a verifier arrived for a code issued without a challenge.
 * - `failed`: verifier missing, malformed or not matching the stored challenge.
 */
export type PkceOutcome = 'ok' | 'downgrade' | 'failed';

export function checkPkce(
  stored: { challenge: string | null; method: ChallengeMethod | null },
  verifier: string | undefined,
): PkceOutcome {
  if (stored.challenge === null) return verifier === undefined ? 'ok' : 'downgrade';
  if (verifier === undefined || !isWellFormedVerifier(verifier)) return 'failed';
  // A challenge stored without a method is plain (RFC 7636 §4.3).
  const derived = stored.method === 'S256' ? s256Challenge(verifier) : verifier;
  return safeEqual(derived, stored.challenge) ? 'ok' : 'failed';
}
