import type { OAuthClient } from '../../issuer/clients.ts';
import type { VerifiedProof } from '../../dpop/dpop.ts';
import { parseScopeList } from '../../scopes.ts';
import { ACCESS_TOKEN_TTL_S, findLiveToken, refreshAccessToken } from '../../issuer/tokens.ts';
import { digestSecret, prefixes } from '../../security/secrets.ts';
import { invalidGrant, invalidScope, unauthorizedClient } from '../token-errors.ts';
import type { Params } from '../../http/form.ts';
import { param, requiredParam } from '../token-params.ts';
import { rotateRefreshToken, rotatesRefreshTokens } from '../../issuer/refresh-rotation.ts';
import { refusedRefreshToken } from '../refresh-rotation.ts';
import type { Issuer } from '../token-issuer.ts';
import { lostToRevocation, MAX_SECRET_CHARS, tokenResponse, type TokenResponse } from './token-response.ts';

/** The `refresh_token` grant (RFC 6749 §6): a new access token, and a new refresh token where they rotate. */

/** Scopes asked for in `scope`, each of which must be among `allowed`. */
function narrowedScopes(requested: string | undefined, allowed: readonly string[]): string[] | null {
  if (requested === undefined) return null;
  const scopes = parseScopeList(requested);
  if (scopes.length === 0) throw invalidScope('scope is empty');
  const extra = scopes.filter((s) => !allowed.includes(s));
  if (extra.length > 0) throw invalidScope('scope not granted');
  return scopes;
}

export async function refreshTokenGrant(
  iss: Issuer,
  client: OAuthClient,
  params: Params,
  proof: VerifiedProof | null,
): Promise<TokenResponse> {
  if (!client.grants.includes('refresh_token')) throw unauthorizedClient('client may not use this grant');
  const value = requiredParam(params, 'refresh_token');
  const scope = param(params, 'scope');
  if (!value.startsWith(prefixes.refreshToken) || value.length > MAX_SECRET_CHARS) {
    throw invalidGrant('refresh token not found');
  }
  const now = iss.clock.now();
  const digest = digestSecret(iss.pepper, value);
  const token = await findLiveToken(iss.db, digest, now);
  if (!token) throw await refusedRefreshToken(iss, client, digest, now);
  if (token.kind !== 'refresh' || token.clientId !== client.clientId) {
    throw invalidGrant('refresh token not found');
  }
  const scopes = narrowedScopes(scope, token.scopes) ?? token.scopes;
  if (token.jkt !== null && proof?.jkt !== token.jkt)
    throw invalidGrant('the refresh token is bound to another DPoP key');
  const refresh = { digest, absoluteMaxMs: iss.refreshMaxAgeMs };
  const access = { scopes, jkt: proof?.jkt ?? null, expiresAt: new Date(now + ACCESS_TOKEN_TTL_S * 1000) };
  let issued: { access: string; refresh?: string } | null;
  try {
    if (rotatesRefreshTokens(client, iss.refreshRotation)) {
      issued = await rotateRefreshToken(iss.db, iss.pepper, now, refresh, access);
    } else {
      const renewed = await refreshAccessToken(iss.db, iss.pepper, now, refresh, access);
      issued = renewed === null ? null : { access: renewed };
    }
  } catch (err) {
    if (!lostToRevocation(err)) throw err;
    throw invalidGrant('refresh token not found');
  }
  // Gone since it was read: rotated by a concurrent refresh (a reuse), expired, or revoked.
  if (issued === null) throw await refusedRefreshToken(iss, client, digest, now);
  return tokenResponse(issued.access, scopes, proof, issued.refresh);
}
