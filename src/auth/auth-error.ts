/**
 * Why a data-API request was refused, in OAuth terms: the status, the challenge scheme, the OAuth
 * error code (RFC 6750 §3.1, RFC 9449 §7.1) and its description, and a DPoP nonce to retry with.
 * The HTTP layer renders it (`WWW-Authenticate`, `DPoP-Nonce`); nothing here knows about HTTP.
 */
export type AuthErrorCode = 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce' | 'insufficient_scope';

export class AuthError extends Error {
  constructor(
    readonly status: 401 | 403,
    readonly scheme: 'Bearer' | 'DPoP',
    /** Absent when no usable credentials were presented at all (RFC 6750 §3.1). */
    readonly code?: AuthErrorCode,
    readonly description?: string,
    /** A fresh DPoP nonce, with `use_dpop_nonce`. */
    readonly nonce?: string,
    /** The scope missing, with `insufficient_scope`. */
    readonly scope?: string,
  ) {
    super(description ?? code ?? 'authentication required');
  }
}

/** Missing or unusable credentials: a bare Bearer challenge. */
export const credentialsRequired = () => new AuthError(401, 'Bearer');

/** A Bearer token that does not count. */
export const bearerRefused = (description: string) =>
  new AuthError(401, 'Bearer', 'invalid_token', description);

/** A DPoP-bound token or its proof that does not count. */
export const dpopRefused = (
  code: Exclude<AuthErrorCode, 'insufficient_scope'>,
  description: string,
  nonce?: string,
) => new AuthError(401, 'DPoP', code, description, nonce);

export const insufficientScope = (scope: string) =>
  new AuthError(403, 'Bearer', 'insufficient_scope', undefined, undefined, scope);
