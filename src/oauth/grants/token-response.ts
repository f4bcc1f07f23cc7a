import type { VerifiedProof } from '../../dpop/dpop.ts';
import { ACCESS_TOKEN_TTL_S, type NewToken } from '../../issuer/tokens.ts';

/** The token endpoint's answer and the pieces every grant builds it from. */

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/** Longest code or refresh token looked up: a longer one cannot be one of ours. */
export const MAX_SECRET_CHARS = 200;

/** An access token of the standard life, issued now. */
export function accessToken(now: number, t: Omit<NewToken, 'kind' | 'expiresAt'>): NewToken {
  return { ...t, kind: 'access', expiresAt: new Date(now + ACCESS_TOKEN_TTL_S * 1000) };
}

/** The body of a successful token response (RFC 6749 §5.1; `DPoP` for a bound token, RFC 9449 §5). */
export function tokenResponse(
  access: string,
  scopes: string[],
  proof: VerifiedProof | null,
  refresh?: string,
): TokenResponse {
  return {
    access_token: access,
    token_type: proof ? 'DPoP' : 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_S,
    ...(refresh !== undefined ? { refresh_token: refresh } : {}),
    scope: scopes.join(' '),
  };
}

/**
 * Whether a write failed because the authorization was being deleted at the same moment: its row
 * is gone (foreign key violation), or the delete's cascade and this write waited on each other and
 * the database chose this write as the deadlock victim. Either way the grant no longer exists.
 */
export function lostToRevocation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === '23503' || code === '40P01';
}
