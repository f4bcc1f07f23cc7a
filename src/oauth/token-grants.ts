import { isAccountActive } from '../accounts/accounts.ts';
import type { OAuthClient } from '../issuer/clients.ts';
import type { ClientCache } from '../issuer/client-cache.ts';
import { redeemCode, type RedeemedCode } from '../issuer/code-redemption.ts';
import type { VerifiedProof } from '../dpop/dpop.ts';
import { checkPkce } from '../issuer/pkce.ts';
import { isKnownScope, parseScopeList } from '../scopes.ts';
import {
  ACCESS_TOKEN_TTL_S,
  announceRevoked,
  deleteGrantTokens,
  findLiveToken,
  REFRESH_TOKEN_TTL_MS,
  refreshAccessToken,
  storeTokens,
  type NewToken,
} from '../issuer/tokens.ts';
import type { Bus } from '../bus/types.ts';
import type { Clock } from '../clock.ts';
import type { Db, Queryable } from '../db/types.ts';
import { digestSecret, prefixes } from '../security/secrets.ts';
import {
  invalidGrant,
  invalidRequest,
  invalidScope,
  OAuthError,
  unauthorizedClient,
} from './token-errors.ts';
import type { Params } from '../http/form.ts';
import { param, requiredParam } from './token-params.ts';
import type { AccountTokenWriter } from '../issuer/token-batch.ts';
import { rotateRefreshToken, rotatesRefreshTokens } from '../issuer/refresh-rotation.ts';
import type { RefreshRotationDefault } from '../config.ts';
import { refusedRefreshToken } from './refresh-rotation.ts';

/**
 * Longest life of an authorization's refresh token, however often it is used: after three years
 * the user is asked to consent again. Bounds the damage of a refresh token that leaked unnoticed.
 */
export const REFRESH_TOKEN_MAX_AGE_MS = 3 * 365 * 86_400_000;

export interface Issuer {
  db: Db;
  /** Client records, cached for a few seconds (client-cache.ts). */
  clients: ClientCache;
  /** Writes client_credentials tokens, concurrent ones together (auth/token-batch.ts). */
  accountTokens: AccountTokenWriter;
  bus: Bus;
  clock: Clock;
  pepper: Buffer;
  refreshMaxAgeMs: number;
  /** Whose refresh tokens rotate when their client follows the default (NAMAZU_REFRESH_ROTATION). */
  refreshRotation: RefreshRotationDefault;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

const MAX_SECRET_CHARS = 200;

function accessToken(now: number, t: Omit<NewToken, 'kind' | 'expiresAt'>): NewToken {
  return { ...t, kind: 'access', expiresAt: new Date(now + ACCESS_TOKEN_TTL_S * 1000) };
}

function response(
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
function lostToRevocation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === '23503' || code === '40P01';
}

/** Stores tokens of an authorization; losing a race with its deletion is an invalid grant. */
async function storeForGrant(q: Queryable, iss: Issuer, now: number, tokens: NewToken[]): Promise<string[]> {
  try {
    return await storeTokens(q, iss.pepper, now, tokens);
  } catch (err) {
    if (lostToRevocation(err)) throw invalidGrant('the authorization was revoked');
    throw err;
  }
}

/** Checks of a redeemed code against the token request; returns the failure, if any. */
function redemptionFailure(
  code: RedeemedCode,
  client: OAuthClient,
  redirectUri: string | undefined,
  verifier: string | undefined,
  proof: VerifiedProof | null,
): OAuthError | null {
  if (code.redirectUri !== null) {
    if (redirectUri === undefined)
      return invalidRequest('redirect_uri was sent at authorization and is required');
    if (redirectUri !== code.redirectUri) {
      return new OAuthError('invalid_redirect_uri', 'redirect_uri differs from the authorization request');
    }
  } else if (
    redirectUri !== undefined &&
    (client.redirectUris.length !== 1 || redirectUri !== client.redirectUris[0])
  ) {
    return new OAuthError('invalid_redirect_uri', 'redirect_uri differs from the authorization request');
  }
  if (client.type === 'public' && code.codeChallenge === null)
    return invalidGrant('public clients must use PKCE');
  const pkce = checkPkce({ challenge: code.codeChallenge, method: code.codeChallengeMethod }, verifier);
  if (pkce === 'failed') return new OAuthError('invalid_code_verifier', 'code_verifier does not match');
  if (pkce === 'downgrade') {
    return new OAuthError('invalid_code_verifier', 'code_verifier sent but no code_challenge was');
  }
  if (code.dpopJkt !== null && proof?.jkt !== code.dpopJkt) {
    return invalidGrant('the code is bound to another DPoP key');
  }
  return null;
}

export async function authorizationCodeGrant(
  iss: Issuer,
  client: OAuthClient,
  params: Params,
  proof: VerifiedProof | null,
): Promise<TokenResponse> {
  if (!client.grants.includes('authorization_code'))
    throw unauthorizedClient('client may not use this grant');
  const code = requiredParam(params, 'code');
  const redirectUri = param(params, 'redirect_uri');
  const verifier = param(params, 'code_verifier');
  if (!code.startsWith(prefixes.code) || code.length > MAX_SECRET_CHARS) throw invalidGrant('code not found');
  const now = iss.clock.now();
  const digest = digestSecret(iss.pepper, code);
  const outcome = await iss.db.tx(async (q) => {
    const r = await redeemCode(q, digest, client.clientId, now);
    if (r.status === 'invalid') return { error: invalidGrant('code not found') };
    if (r.status === 'reused') {
      return { error: invalidGrant('code already used'), revoked: await deleteGrantTokens(q, r.grantId) };
    }
    const c = r.code;
    // A failed check returns instead of throwing, so the transaction commits the code as spent.
    const error = redemptionFailure(c, client, redirectUri, verifier, proof);
    if (error) return { error };
    const base = { grantId: c.grantId, clientId: client.clientId, accountId: c.accountId, scopes: c.scopes };
    const [access, refresh] = await storeForGrant(q, iss, now, [
      accessToken(now, { ...base, jkt: proof?.jkt ?? null }),
      {
        ...base,
        kind: 'refresh',
        // Only a public client's refresh token is bound: a confidential client proves itself anyway.
        jkt: client.type === 'public' ? (proof?.jkt ?? null) : null,
        expiresAt: new Date(now + Math.min(REFRESH_TOKEN_TTL_MS, iss.refreshMaxAgeMs)),
      },
    ]);
    return { tokens: response(access!, c.scopes, proof, refresh!) };
  });
  if ('revoked' in outcome && outcome.revoked) await announceRevoked(iss.bus, outcome.revoked);
  if ('error' in outcome) throw outcome.error;
  return outcome.tokens;
}

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
  return response(issued.access, scopes, proof, issued.refresh);
}

export async function clientCredentialsGrant(
  iss: Issuer,
  client: OAuthClient,
  params: Params,
  proof: VerifiedProof | null,
): Promise<TokenResponse> {
  if (client.type !== 'confidential')
    throw unauthorizedClient('public clients cannot use client_credentials');
  if (!client.grants.includes('client_credentials'))
    throw unauthorizedClient('client may not use this grant');
  const scopes = await requestedClientScopes(iss, client, params);
  const now = iss.clock.now();
  // The token acts for the account that owns the client; it belongs to no user authorization.
  const access = await iss.accountTokens.issue(
    now,
    accessToken(now, {
      grantId: null,
      clientId: client.clientId,
      accountId: client.accountId,
      scopes,
      jkt: proof?.jkt ?? null,
    }),
  );
  // The token would act for the client's account: a disabled account gets none (the writer stores
  // a token only while its account is active).
  if (access === null) throw unauthorizedClient('client may not use this grant');
  return response(access, scopes, proof);
}

/**
 * The scopes a client_credentials request asks for, every one the client's own. When the request
 * is refused, a disabled account is the reason given first.
 */
async function requestedClientScopes(iss: Issuer, client: OAuthClient, params: Params): Promise<string[]> {
  try {
    const scopes = parseScopeList(requiredParam(params, 'scope'));
    const refused = scopes.filter((s) => !isKnownScope(s) || !client.scopes.includes(s));
    if (scopes.length === 0 || refused.length > 0) throw invalidScope('scope not allowed');
    return scopes;
  } catch (err) {
    if (!(await isAccountActive(iss.db, client.accountId)))
      throw unauthorizedClient('client may not use this grant');
    throw err;
  }
}
