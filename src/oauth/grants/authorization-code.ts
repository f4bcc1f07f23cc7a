import type { OAuthClient } from '../../issuer/clients.ts';
import { redeemCode, type RedeemedCode } from '../../issuer/code-redemption.ts';
import type { VerifiedProof } from '../../dpop/dpop.ts';
import { checkPkce } from '../../issuer/pkce.ts';
import {
  announceRevoked,
  deleteGrantTokens,
  REFRESH_TOKEN_TTL_MS,
  storeTokens,
  type NewToken,
} from '../../issuer/tokens.ts';
import type { Queryable } from '../../db/types.ts';
import { digestSecret, prefixes } from '../../security/secrets.ts';
import { invalidGrant, invalidRequest, OAuthError, unauthorizedClient } from '../token-errors.ts';
import type { Params } from '../../http/form.ts';
import { param, requiredParam } from '../token-params.ts';
import type { Issuer } from '../token-issuer.ts';
import {
  accessToken,
  lostToRevocation,
  MAX_SECRET_CHARS,
  tokenResponse,
  type TokenResponse,
} from './token-response.ts';

/** The `authorization_code` grant (RFC 6749 §4.1.3): a code, spent once, for an access and a refresh token. */

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
    return { tokens: tokenResponse(access!, c.scopes, proof, refresh!) };
  });
  if ('revoked' in outcome && outcome.revoked) await announceRevoked(iss.bus, outcome.revoked);
  if ('error' in outcome) throw outcome.error;
  return outcome.tokens;
}
