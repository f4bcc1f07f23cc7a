import type { OAuthClient } from '../issuer/clients.ts';
import type { ClientCache } from '../issuer/client-cache.ts';
import { authorizationOf, readCredential, REPEATED_AUTHORIZATION } from '../security/credential-reader.ts';
import { digestSecret, safeEqual } from '../security/secrets.ts';
import { invalidRequest, OAuthError } from './token-errors.ts';
import type { Params } from '../http/form.ts';
import { param } from './token-params.ts';

/** The client credentials a request presented, before they are checked. */
export interface PresentedClient {
  clientId: string;
  secret: string | null;
  /** Whether they came in `Authorization: Basic` (failures then carry a Basic challenge). */
  basic: boolean;
}

const CLIENT_ID = /^[\x21-\x7e]{1,200}$/;

/** The client id and secret of `Authorization: Basic` (client_secret_basic). */
function basicClient(header: string): { clientId: string; secret: string } {
  if (header === REPEATED_AUTHORIZATION) throw invalidRequest('more than one Authorization header');
  const { scheme, credential } = readCredential(header);
  if (scheme !== 'Basic') throw invalidRequest('unsupported Authorization scheme');
  if (credential?.scheme !== 'Basic') throw invalidRequest('malformed Basic credentials');
  return { clientId: credential.user, secret: credential.password };
}

/**
 * Reads the client's credentials from `Authorization: Basic` (client_secret_basic) or from the body
 * (client_secret_post, or a bare client_id for public clients). Using two methods at once, or
 * naming two different clients, is `invalid_request`.
 */
export function presentedClient(rawHeaders: readonly string[], params: Params): PresentedClient {
  const authorization = authorizationOf(rawHeaders);
  const bodyId = param(params, 'client_id');
  const bodySecret = param(params, 'client_secret');
  if (authorization !== undefined) {
    const basic = basicClient(authorization);
    if (bodySecret !== undefined) throw invalidRequest('client authenticated with more than one method');
    if (bodyId !== undefined && bodyId !== basic.clientId)
      throw invalidRequest('client_id differs from Basic credentials');
    return { clientId: basic.clientId, secret: basic.secret, basic: true };
  }
  if (bodyId === undefined) throw invalidRequest('parameter client_id missing');
  return { clientId: bodyId, secret: bodySecret ?? null, basic: false };
}

/** 401 invalid_client, with a Basic challenge when the client tried Basic (RFC 6749 §5.2). */
export function invalidClient(presented: Pick<PresentedClient, 'basic'>, description: string): OAuthError {
  return new OAuthError(
    'invalid_client',
    description,
    presented.basic ? { 'www-authenticate': 'Basic realm="namazu", charset="UTF-8"' } : {},
  );
}

/**
 * Authenticates the client (every failure has the same description, so an answer never tells
 * whether a client id exists): a confidential client must prove its secret (client_secret_basic or
 * client_secret_post); a public client authenticates with `none` and must not send a secret.
 */
export async function authenticateClient(
  clients: ClientCache,
  pepper: Buffer,
  presented: PresentedClient,
): Promise<OAuthClient> {
  // Client ids are printable ASCII (CId. + base64url): anything else is refused without a lookup.
  if (!CLIENT_ID.test(presented.clientId)) throw invalidClient(presented, 'client authentication failed');
  const found = await clients.find(presented.clientId);
  if (!found) throw invalidClient(presented, 'client authentication failed');
  const { client, secretDigest } = found;
  if (client.type === 'public') {
    if (presented.secret !== null) throw invalidClient(presented, 'client authentication failed');
    return client;
  }
  if (presented.secret === null) throw invalidClient(presented, 'client authentication failed');
  if (
    presented.secret.length > 200 ||
    secretDigest === null ||
    !safeEqual(secretDigest, digestSecret(pepper, presented.secret))
  ) {
    throw invalidClient(presented, 'client authentication failed');
  }
  return client;
}
