import type { FastifyRequest } from 'fastify';
import { findLiveToken } from '../issuer/tokens.ts';
import { digestSecret } from '../security/secrets.ts';
import { authenticateClient, invalidClient, presentedClient } from './client-auth.ts';
import type { Issuer } from './token-issuer.ts';
import type { Params } from '../http/form.ts';
import { requiredParam } from './token-params.ts';

export const INTROSPECT_PATH = '/account/oauth2/v1/introspect';

export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      /** The account the token acts for. */
      sub: string;
      token_type?: 'Bearer' | 'DPoP';
      exp: number;
      iat: number;
      cnf?: { jkt: string };
    };

/**
 * RFC 7662 introspection for resource servers. Only confidential clients that authenticate may ask.
 * Access tokens of any client are described (a resource server checks tokens issued to others);
 * refresh tokens only to the client that holds them.
 */
export async function handleIntrospectRequest(
  iss: Issuer,
  request: FastifyRequest,
  params: Params,
): Promise<IntrospectionResponse> {
  const presented = presentedClient(request.raw.rawHeaders, params);
  const client = await authenticateClient(iss.clients, iss.pepper, presented);
  if (client.type !== 'confidential')
    throw invalidClient(presented, 'introspection needs a confidential client');
  const token = requiredParam(params, 'token');
  if (token.length > 200) return { active: false };
  const t = await findLiveToken(iss.db, digestSecret(iss.pepper, token), iss.clock.now());
  if (!t || (t.kind === 'refresh' && t.clientId !== client.clientId)) return { active: false };
  return {
    active: true,
    scope: t.scopes.join(' '),
    client_id: t.clientId,
    sub: String(t.accountId),
    ...(t.kind === 'access' ? { token_type: t.jkt ? 'DPoP' : 'Bearer' } : {}),
    exp: Math.floor(t.expiresAt.getTime() / 1000),
    iat: Math.floor(t.createdAt.getTime() / 1000),
    ...(t.jkt ? { cnf: { jkt: t.jkt } } : {}),
  };
}
