import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { publicUrls } from '../http/public-urls.ts';
import { knownScopes } from '../scopes.ts';
import { surfacePlugin } from '../http/plugins.ts';

/** Paths of the OAuth endpoints under the public auth URL (docs/oauth.md "Server metadata"). */
export const oauthPaths = {
  authorize: '/account/oauth2/v1/auth',
  token: '/account/oauth2/v1/token',
  revoke: '/account/oauth2/v1/revoke',
  introspect: '/account/oauth2/v1/introspect',
  metadata: '/.well-known/oauth-authorization-server',
} as const;

/** The issuer: the auth origin, no path (docs/api-contract.md "Addresses"). */
export function issuerOf(authUrl: string): string {
  return new URL(authUrl).origin;
}

/** Joins a public base URL (which may end in '/' or carry a path prefix) and an absolute path. */
export function endpointUrl(authUrl: string, path: string): string {
  return authUrl.replace(/\/+$/, '') + path;
}

const clientAuthMethods = ['client_secret_basic', 'client_secret_post', 'none'];

/** RFC 8414 authorization server metadata with exactly the fields docs/oauth.md "Server metadata" lists. */
export function authorizationServerMetadata(authUrl: string) {
  return {
    issuer: issuerOf(authUrl),
    authorization_endpoint: endpointUrl(authUrl, oauthPaths.authorize),
    token_endpoint: endpointUrl(authUrl, oauthPaths.token),
    revocation_endpoint: endpointUrl(authUrl, oauthPaths.revoke),
    introspection_endpoint: endpointUrl(authUrl, oauthPaths.introspect),
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256', 'plain'],
    token_endpoint_auth_methods_supported: clientAuthMethods,
    revocation_endpoint_auth_methods_supported: clientAuthMethods,
    scopes_supported: [...knownScopes],
    dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'PS256', 'RS256'],
    authorization_response_iss_parameter_supported: true,
  };
}

/** The authorization server's metadata (RFC 8414). */
export const oauthMetadata = surfacePlugin('namazu-oauth-metadata', registerMetadata);

function registerMetadata(app: App, ctx: AppContext): void {
  app.get(oauthPaths.metadata, async (request, reply) => {
    // Without NAMAZU_AUTH_URL the issuer comes from the request's Host: no shared cache may keep it.
    if (ctx.config.authUrl === null)
      reply.header('cache-control', 'private, max-age=300').header('vary', 'Host');
    else reply.header('cache-control', 'public, max-age=300');
    return authorizationServerMetadata(publicUrls(ctx.config, request).auth);
  });
}
