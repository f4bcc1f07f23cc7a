import type { FastifyRequest } from 'fastify';
import { createAuthenticator, requireScope, type ResourceRequest } from '../access/authenticate.ts';
import { dpopHeaderValues } from '../dpop/dpop-check.ts';
import { DpopNonces, dpopNonceKey } from '../dpop/dpop-nonce.ts';
import type { Principal } from '../access/principal.ts';
import type { Config } from '../config.ts';
import { authorizationOf } from '../security/credential-reader.ts';
import { sharedPlugin, sharedPlugins } from './plugins.ts';
import { publicUrls } from './public-urls.ts';
import { onStop } from './stop.ts';
import type { AppPlugin } from './surface.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Scopes a route requires: the authentication hook runs for it and checks every one. */
    scopes?: readonly string[];
    /** Check revocation in the database now instead of trusting the cache (docs/api-contract.md "Credentials"). */
    fresh?: boolean;
  }
  interface FastifyRequest {
    /** Who the request acts for; set before validation on every route that declares `scopes`. */
    principal: Principal;
  }
  interface FastifyInstance {
    /** The process's DPoP server nonces (token endpoint and resource server); null when off. */
    dpopNonces: DpopNonces | null;
  }
}

/** The parts of a Fastify request the resource-server check reads. */
class FastifyResourceRequest implements ResourceRequest {
  readonly method: string;
  readonly authorization: string | undefined;
  readonly apiKey: string | undefined;

  constructor(
    private readonly config: Config,
    private readonly request: FastifyRequest,
  ) {
    this.method = request.method;
    this.authorization = authorizationOf(request.raw.rawHeaders);
    const key = (request.query as Record<string, unknown> | undefined)?.key;
    this.apiKey = typeof key === 'string' ? key : undefined;
  }

  // Read only for DPoP-bound tokens: the Bearer and API key paths never pay for them.
  get dpop(): string[] {
    return dpopHeaderValues(this.request.raw.rawHeaders);
  }

  urls(): string[] {
    const urls = publicUrls(this.config, this.request);
    const path = this.request.url.split('?')[0]!;
    return [urls.base + path, urls.data + path];
  }
}

/**
 * Authentication of the data API, once per app: one authenticator (its credential caches and their
 * revocation subscription, ended when the app closes) and one set of DPoP nonces, which the token
 * endpoint shares (`app.dpopNonces`). A route that declares `config: { scopes }` is authenticated
 * in `onRequest`, before its body is read, so a request without valid credentials is refused
 * without reading its body; `request.principal` is set for the handler, and the answer is
 * `Cache-Control: private, no-store` unless the route says otherwise. A refusal is an `AuthError`,
 * which the error handler in force renders with its challenge (http/errors.ts).
 */
export const authentication: AppPlugin = sharedPlugin(sharedPlugins.authentication, async (app, { ctx }) => {
  const nonces = ctx.config.dpopNonce ? new DpopNonces(dpopNonceKey(ctx.pepper)) : null;
  const authenticator = await createAuthenticator(ctx, nonces);
  onStop(app, 'onClose', () => authenticator.close());
  app.decorate('dpopNonces', nonces);
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request, reply) => {
    const { scopes, fresh } = request.routeOptions.config;
    if (scopes === undefined) return;
    // Answers for an account are for it alone: no shared or browser cache keeps them (a `?key=`
    // URL included). A route whose answer may be kept says so itself (telegram bodies).
    reply.header('cache-control', 'private, no-store');
    const principal = await authenticator.authenticate(new FastifyResourceRequest(ctx.config, request), {
      fresh,
    });
    for (const scope of scopes) requireScope(principal, scope);
    request.principal = principal;
  });
});
