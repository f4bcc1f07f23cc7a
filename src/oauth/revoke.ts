import type { FastifyRequest } from 'fastify';
import { announceRevoked, deleteToken, endGrant, findTokenOwner } from '../issuer/tokens.ts';
import { digestSecret, prefixes } from '../security/secrets.ts';
import { authenticateClient, presentedClient } from './client-auth.ts';
import type { Issuer } from './token-issuer.ts';
import type { Params } from '../http/form.ts';
import { requiredParam } from './token-params.ts';

export const REVOKE_PATH = '/account/oauth2/v1/revoke';

/**
 * RFC 7009 revocation. Succeeds whether or not the token exists; a token of another client is left
 * alone (and the answer is the same, so revocation reveals nothing). Revoking a refresh token ends
 * its whole authorization: every access token issued from it stops too.
 */
export async function handleRevokeRequest(
  iss: Issuer,
  request: FastifyRequest,
  params: Params,
): Promise<void> {
  const client = await authenticateClient(
    iss.clients,
    iss.pepper,
    presentedClient(request.raw.rawHeaders, params),
  );
  const token = requiredParam(params, 'token');
  // token_type_hint is only a hint (RFC 7009 §2.1): the token's own kind decides.
  if (
    token.length > 200 ||
    !(token.startsWith(prefixes.accessToken) || token.startsWith(prefixes.refreshToken))
  )
    return;
  const digest = digestSecret(iss.pepper, token);
  const owner = await findTokenOwner(iss.db, digest);
  if (!owner || owner.clientId !== client.clientId) return;
  const revoked =
    owner.kind === 'refresh' && owner.grantId !== null
      ? await endGrant(iss.db, owner.grantId)
      : (await deleteToken(iss.db, digest))
        ? [digest]
        : [];
  await announceRevoked(iss.bus, revoked);
}
