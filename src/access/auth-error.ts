import { CodedError } from '../errors.ts';
import { dpopAlgorithms } from '../dpop/dpop.ts';

/**
 * Why a data-API request was refused: the catalogue's `AUTH_REQUIRED` (401) with the challenge of
 * the refused credential in OAuth terms (the scheme, the OAuth error code of RFC 6750 §3.1 or
 * RFC 9449 §7.1 and its description, and a DPoP nonce to retry with: `WWW-Authenticate`,
 * `DPoP-Nonce`), or `INSUFFICIENT_SCOPE` (403, no challenge).
 */
export type AuthErrorCode = 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce' | 'insufficient_scope';

const DPOP_ALGS = `algs="${dpopAlgorithms.join(' ')}"`;

/**
 * The challenge of a refused credential: RFC 6750 §3 (Bearer) or RFC 9449 §7.1 (DPoP). A missing
 * scope (403) carries no challenge.
 */
function challenge(
  scheme: 'Bearer' | 'DPoP',
  error: AuthErrorCode | undefined,
  description: string | undefined,
  nonce: string | undefined,
): Record<string, string> {
  const params = scheme === 'DPoP' ? ['realm="namazu"', DPOP_ALGS] : ['realm="namazu"'];
  if (error) params.push(`error="${error}"`, `error_description="${description ?? ''}"`);
  const headers: Record<string, string> = { 'www-authenticate': `${scheme} ${params.join(', ')}` };
  if (nonce) headers['dpop-nonce'] = nonce;
  return headers;
}

export class AuthError extends CodedError {
  constructor(
    readonly scheme: 'Bearer' | 'DPoP',
    /** Absent when no usable credentials were presented at all (RFC 6750 §3.1). */
    readonly error?: AuthErrorCode,
    readonly description?: string,
    /** A fresh DPoP nonce, with `use_dpop_nonce`. */
    readonly nonce?: string,
    /** The scope missing, with `insufficient_scope`: a 403 without a challenge. */
    readonly scope?: string,
  ) {
    super(scope === undefined ? 'AUTH_REQUIRED' : 'INSUFFICIENT_SCOPE', {
      detail: scope,
      headers: scope === undefined ? challenge(scheme, error, description, nonce) : {},
      message: description ?? error ?? 'authentication required',
    });
  }
}

/** Missing or unusable credentials: a bare Bearer challenge. */
export const credentialsRequired = () => new AuthError('Bearer');

/** A Bearer token that does not count. */
export const bearerRefused = (description: string) => new AuthError('Bearer', 'invalid_token', description);

/** A DPoP-bound token or its proof that does not count. */
export const dpopRefused = (
  code: Exclude<AuthErrorCode, 'insufficient_scope'>,
  description: string,
  nonce?: string,
) => new AuthError('DPoP', code, description, nonce);

export const insufficientScope = (scope: string) =>
  new AuthError('Bearer', 'insufficient_scope', undefined, undefined, scope);
