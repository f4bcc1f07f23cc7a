import { isAccountActive } from '../../accounts/accounts.ts';
import type { OAuthClient } from '../../issuer/clients.ts';
import type { VerifiedProof } from '../../dpop/dpop.ts';
import { isKnownScope, parseScopeList } from '../../scopes.ts';
import { invalidScope, unauthorizedClient } from '../token-errors.ts';
import type { Params } from '../../http/form.ts';
import { requiredParam } from '../token-params.ts';
import type { Issuer } from '../token-issuer.ts';
import { accessToken, tokenResponse, type TokenResponse } from './token-response.ts';

/** The `client_credentials` grant (RFC 6749 §4.4): a confidential client's token acting for its own account. */

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
  return tokenResponse(access, scopes, proof);
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
