import type { ErrorCode } from '../errors.ts';
import { isClientIdShape, type OAuthClient } from '../issuer/clients.ts';
import { isKnownScope, parseScopeList } from '../scopes.ts';
import { singleValue, type Params } from '../http/form.ts';
import { resolveRedirectUri } from '../issuer/redirect-uris.ts';

/**
 * Validation of an authorization request (docs/oauth.md "Authorization endpoint"). The
 * outcome says how to answer: an HTML error page when no redirect URI can be trusted, an error sent
 * to the redirect URI, or a valid request ready for sign-in and consent.
 */

export type ResponseMode = 'query' | 'fragment' | 'form_post';

/** The errors of the authorization endpoint: entries of the error catalogue (src/errors.ts). */
export type AuthorizeErrorCode = Extract<
  ErrorCode,
  | 'invalid_request'
  | 'invalid_scope'
  | 'unauthorized_client'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'unsupported_code_challenge_method'
  | 'no_signin'
  | 'server_error'
>;

/** Where and how a response (success or error) goes back to the client. */
export interface Delivery {
  redirectUri: string;
  mode: ResponseMode;
  /** The request's `state` when it is valid (echoed byte-identical), else null. */
  state: string | null;
}

export interface AuthorizationRequest {
  client: OAuthClient;
  /** `redirect_uri` exactly as sent, or null when omitted (kept with the code for the token step). */
  requestedRedirectUri: string | null;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | 'plain' | null;
  dpopJkt: string | null;
  /** `prompt=none`: no sign-in or consent page may be shown. */
  promptNone: boolean;
}

export type AuthorizeOutcome =
  | { kind: 'page_error'; message: string }
  | { kind: 'redirect_error'; delivery: Delivery; error: AuthorizeErrorCode; description: string }
  | { kind: 'valid'; delivery: Delivery; request: AuthorizationRequest };

export const MAX_STATE_BYTES = 64;
const MAX_SCOPE_LENGTH = 2000;

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
const JWK_THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;
const RESPONSE_MODES: readonly string[] = ['query', 'fragment', 'form_post'];

type Fail = (error: AuthorizeErrorCode, description: string) => AuthorizeOutcome;

/** The client and the redirect URI every later answer goes to; a page error when either is not trusted. */
async function trustedTarget(
  params: Params,
  lookupClient: (clientId: string) => Promise<OAuthClient | null>,
): Promise<
  | { kind: 'page_error'; message: string }
  | { kind: 'trusted'; client: OAuthClient; requestedRedirectUri: string | null; redirectUri: string }
> {
  const clientIds = params.get('client_id');
  if (!clientIds) return { kind: 'page_error', message: 'The request has no client_id.' };
  if (clientIds.length > 1) return { kind: 'page_error', message: 'The parameter client_id is repeated.' };
  const clientId = clientIds[0]!;
  const client = isClientIdShape(clientId) ? await lookupClient(clientId) : null;
  if (!client) return { kind: 'page_error', message: 'The client_id is not a registered client.' };

  const redirectUris = params.get('redirect_uri');
  if (redirectUris && redirectUris.length > 1) {
    return { kind: 'page_error', message: 'The parameter redirect_uri is repeated.' };
  }
  const requestedRedirectUri = redirectUris ? redirectUris[0]! : null;
  const redirectUri = resolveRedirectUri(client.redirectUris, requestedRedirectUri);
  if (redirectUri === null) {
    return {
      kind: 'page_error',
      message:
        requestedRedirectUri === null
          ? 'The request has no redirect_uri, and the client does not have exactly one registered redirect URI that can be used without it.'
          : 'The redirect_uri is not registered for this client.',
    };
  }
  return { kind: 'trusted', client, requestedRedirectUri, redirectUri };
}

/** How the response goes back: the mode asked for (or the default of the response type), and a valid state. */
function deliveryOf(params: Params, redirectUri: string): Delivery {
  const stateValue = singleValue(params, 'state');
  const state = stateValue !== null && Buffer.byteLength(stateValue) <= MAX_STATE_BYTES ? stateValue : null;
  const tokenType = hasTokenType(params);
  const modeValue = singleValue(params, 'response_mode');
  const mode: ResponseMode =
    modeValue !== null && RESPONSE_MODES.includes(modeValue)
      ? (modeValue as ResponseMode)
      : tokenType
        ? 'fragment'
        : 'query';
  return { redirectUri, mode: mode === 'query' && tokenType ? 'fragment' : mode, state };
}

/** Whether `response_type` asks for a token (which is never sent in a query). */
function hasTokenType(params: Params): boolean {
  return singleValue(params, 'response_type')?.split(' ').includes('token') ?? false;
}

/** The failure of the request's form (repeats, mode, state, response type, grant), or null. */
function shapeFailure(params: Params, client: OAuthClient, fail: Fail): AuthorizeOutcome | null {
  for (const values of params.values()) {
    if (values.length > 1) return fail('invalid_request', 'A parameter is repeated.');
  }
  const modeValue = singleValue(params, 'response_mode');
  if (modeValue !== null && !RESPONSE_MODES.includes(modeValue)) {
    return fail('invalid_request', 'response_mode must be query, fragment or form_post.');
  }
  const stateValue = singleValue(params, 'state');
  if (stateValue === null) return fail('invalid_request', 'The parameter state is required.');
  if (Buffer.byteLength(stateValue) > MAX_STATE_BYTES) {
    return fail('invalid_request', `state must be at most ${MAX_STATE_BYTES} bytes.`);
  }
  const responseType = singleValue(params, 'response_type');
  if (responseType === null) return fail('invalid_request', 'The parameter response_type is required.');
  if (hasTokenType(params) && modeValue === 'query') {
    return fail('invalid_request', 'response_mode=query cannot be used when response_type contains token.');
  }
  if (responseType !== 'code') {
    return fail('unsupported_response_type', 'Only response_type=code is supported.');
  }
  if (!client.grants.includes('authorization_code')) {
    return fail('unauthorized_client', 'This client may not use the authorization code flow.');
  }
  return null;
}

/** The requested scopes, each known and allowed for the client; else the failure. */
function scopesOf(params: Params, client: OAuthClient, fail: Fail): string[] | AuthorizeOutcome {
  const scopeValue = singleValue(params, 'scope');
  if (scopeValue === null) return fail('invalid_request', 'The parameter scope is required.');
  if (scopeValue.length > MAX_SCOPE_LENGTH) return fail('invalid_scope', 'The scope is too long.');
  const scopes = parseScopeList(scopeValue);
  if (scopes.length === 0 || !scopes.every((s) => SCOPE_TOKEN.test(s))) {
    return fail('invalid_scope', 'The scope is malformed.');
  }
  if (scopes.some((s) => !isKnownScope(s) || !client.scopes.includes(s))) {
    return fail('invalid_scope', 'A scope is unknown or not allowed for this client.');
  }
  return scopes;
}

/** The PKCE challenge (required of public clients), or the failure. */
function pkceOf(
  params: Params,
  client: OAuthClient,
  fail: Fail,
): Pick<AuthorizationRequest, 'codeChallenge' | 'codeChallengeMethod'> | AuthorizeOutcome {
  const challenge = singleValue(params, 'code_challenge');
  const method = singleValue(params, 'code_challenge_method');
  if (method !== null && method !== 'S256' && method !== 'plain') {
    return fail('unsupported_code_challenge_method', 'code_challenge_method must be S256 or plain.');
  }
  if (method !== null && challenge === null) {
    return fail('invalid_request', 'code_challenge is required when code_challenge_method is present.');
  }
  if (challenge !== null && !PKCE_CHALLENGE.test(challenge)) {
    return fail('invalid_request', 'code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
  }
  if (challenge === null && client.type === 'public') {
    return fail('invalid_request', 'Public clients must use PKCE (code_challenge).');
  }
  return {
    codeChallenge: challenge,
    codeChallengeMethod: challenge === null ? null : ((method ?? 'plain') as 'S256' | 'plain'),
  };
}

const isOutcome = (value: object): value is AuthorizeOutcome => 'kind' in value;

export async function validateAuthorizationRequest(
  params: Params,
  lookupClient: (clientId: string) => Promise<OAuthClient | null>,
): Promise<AuthorizeOutcome> {
  const target = await trustedTarget(params, lookupClient);
  if (target.kind === 'page_error') return target;
  const { client, requestedRedirectUri } = target;

  // From here on every failure is delivered to the redirect URI. Descriptions come from a fixed
  // vocabulary: nothing the request sent is echoed (RFC 6749 §4.1.2.1 allows only printable ASCII
  // there, and a name or value could carry anything).
  const delivery = deliveryOf(params, target.redirectUri);
  const fail: Fail = (error, description) => ({ kind: 'redirect_error', delivery, error, description });
  const shape = shapeFailure(params, client, fail);
  if (shape) return shape;
  const scopes = scopesOf(params, client, fail);
  if (!Array.isArray(scopes)) return scopes;
  const pkce = pkceOf(params, client, fail);
  if (isOutcome(pkce)) return pkce;
  const dpopJkt = singleValue(params, 'dpop_jkt');
  if (dpopJkt !== null && !JWK_THUMBPRINT.test(dpopJkt)) {
    return fail('invalid_request', 'dpop_jkt must be a base64url SHA-256 JWK thumbprint.');
  }
  const promptNone = (singleValue(params, 'prompt') ?? '').split(' ').includes('none');
  return {
    kind: 'valid',
    delivery,
    request: { client, requestedRedirectUri, scopes, ...pkce, dpopJkt, promptNone },
  };
}
