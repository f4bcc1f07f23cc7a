import type { FastifyRequest } from 'fastify';
import { checkDpopProof, readDpopHeader, type DpopPolicy } from '../dpop/dpop-check.ts';
import { DpopError, type VerifiedProof } from '../dpop/dpop.ts';
import { authenticateClient, presentedClient } from './client-auth.ts';
import { invalidRequest, OAuthError } from './token-errors.ts';
import { authorizationCodeGrant } from './grants/authorization-code.ts';
import { clientCredentialsGrant } from './grants/client-credentials.ts';
import { refreshTokenGrant } from './grants/refresh-token.ts';
import type { TokenResponse } from './grants/token-response.ts';
import type { Issuer } from './token-issuer.ts';
import type { Params } from '../http/form.ts';
import { param } from './token-params.ts';

export const TOKEN_PATH = '/account/oauth2/v1/token';

const grants = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  client_credentials: clientCredentialsGrant,
} as const;

/** A DPoP failure as the token endpoint reports it: 400, with a fresh nonce when one is wanted. */
export function dpopFailure(e: DpopError, nonce: string | null): OAuthError {
  return new OAuthError(
    e.code,
    e.message,
    e.code === 'use_dpop_nonce' && nonce ? { 'dpop-nonce': nonce } : {},
  );
}

export interface TokenEndpoint {
  issuer: Issuer;
  dpop: DpopPolicy;
  /** Public URL of this endpoint (the `htu` proofs must name). */
  url: (request: FastifyRequest) => string;
}

/**
 * `POST /account/oauth2/v1/token`: grant type, then client authentication, then the DPoP proof
 * (after authentication, so unauthenticated requests never write a proof id), then the grant.
 */
export async function handleTokenRequest(
  endpoint: TokenEndpoint,
  request: FastifyRequest,
  params: Params,
): Promise<{ body: TokenResponse; headers: Record<string, string> }> {
  const grantType = param(params, 'grant_type');
  if (grantType === undefined) throw invalidRequest('parameter grant_type missing');
  if (!Object.hasOwn(grants, grantType)) {
    throw new OAuthError('unsupported_grant_type', 'grant_type not supported');
  }
  const presented = presentedClient(request.raw.rawHeaders, params);
  const client = await authenticateClient(endpoint.issuer.clients, endpoint.issuer.pepper, presented);
  const nonce = endpoint.dpop.nonces?.current(endpoint.issuer.clock.now()) ?? null;
  let proof: VerifiedProof | null = null;
  try {
    const header = readDpopHeader(request.raw.rawHeaders);
    if (header !== undefined)
      proof = await checkDpopProof(endpoint.dpop, header, { htm: 'POST', htu: endpoint.url(request) });
  } catch (e) {
    if (e instanceof DpopError) throw dpopFailure(e, nonce);
    throw e;
  }
  const body = await grants[grantType as keyof typeof grants](endpoint.issuer, client, params, proof);
  return { body, headers: proof && nonce ? { 'dpop-nonce': nonce } : {} };
}
