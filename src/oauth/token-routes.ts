import type { FastifyError, FastifyRequest } from 'fastify';
import { FailureLimiter } from '../security/failure-limiter.ts';
import { busCodecs } from '../bus/codecs.ts';
import { ClientCache } from '../issuer/client-cache.ts';
import { AccountTokenWriter } from '../issuer/token-batch.ts';
import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { renderPathErrors } from '../http/path-errors.ts';
import { publicUrls } from '../http/public-urls.ts';
import { onStop } from '../http/stop.ts';
import { handleIntrospectRequest, INTROSPECT_PATH } from './introspect.ts';
import { handleRevokeRequest, REVOKE_PATH } from './revoke.ts';
import { handleTokenRequest, TOKEN_PATH, type TokenEndpoint } from './token.ts';
import { scheduleTokenCleanup } from './token-cleanup.ts';
import { presentedClient } from './client-auth.ts';
import { asOAuthError, invalidRequest, OAuthError, sendOAuthError } from './token-errors.ts';
import { REFRESH_TOKEN_MAX_AGE_MS, type Issuer } from './token-issuer.ts';
import { acceptForms, formOf, FORM_BODY_LIMIT, type Params } from '../http/form.ts';
import { sharedPlugins, surfacePlugin } from '../http/plugins.ts';
import { addressGroup } from '../http/client-address.ts';

/** How long a client record is reused at these endpoints before it is read again. */
export const CLIENT_CACHE_MS = 5_000;

/**
 * Failed requests allowed per minute from one IP, and from one IP for one client id, before 429.
 * Keying by IP (not by client id alone) means nobody can lock a client out from elsewhere.
 */
export const FAILURE_LIMITS = { perIp: 300, perIpAndClient: 30, windowMs: 60_000 } as const;

const NOT_A_FORM = Symbol('not a form');

/** The client id a request names, for keying failures (unverified, never trusted for anything else). */
function namedClient(request: FastifyRequest): string {
  // The decoded client id (Basic per RFC 6749 Appendix B, or the form's client_id), never the raw
  // header: a key that changes with each guessed secret or spelling would never reach its limit.
  try {
    return presentedClient(request.raw.rawHeaders, formOf(request) ?? new Map()).clientId.slice(0, 200);
  } catch {
    return '-';
  }
}

const tooManyFailures = (retryAfter: number) =>
  new OAuthError('invalid_request', 'too many failed requests', { 'retry-after': String(retryAfter) }, 429);

/** What issues and checks tokens for these endpoints. */
function tokenIssuer(ctx: AppContext): Issuer {
  return {
    db: ctx.db,
    clients: new ClientCache(ctx.db, ctx.clock, CLIENT_CACHE_MS),
    accountTokens: new AccountTokenWriter(ctx.db, ctx.pepper),
    bus: ctx.bus,
    clock: ctx.clock,
    pepper: ctx.pepper,
    refreshMaxAgeMs: REFRESH_TOKEN_MAX_AGE_MS,
    refreshRotation: ctx.config.refreshRotation,
  };
}

/** These endpoints take POST only: any other method is answered 405 in their error format. */
function refuseOtherMethods(scope: App): void {
  const notAllowed = async () => {
    throw new OAuthError('invalid_request', 'use POST', { allow: 'POST' }, 405);
  };
  for (const url of [TOKEN_PATH, REVOKE_PATH, INTROSPECT_PATH]) {
    scope.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE'], url, handler: notAllowed });
  }
}

/**
 * Token, revocation and introspection endpoints (RFC 6749, 7009, 7662) with DPoP (RFC 9449): the
 * DPoP nonces are the ones the authentication plugin holds for the data API (`app.dpopNonces`).
 */
export const tokenEndpoints = surfacePlugin('namazu-token-endpoints', registerTokenEndpoints, [
  sharedPlugins.authentication,
  sharedPlugins.pathErrors,
]);

async function registerTokenEndpoints(app: App, ctx: AppContext): Promise<void> {
  const issuer = tokenIssuer(ctx);
  const endpoint: TokenEndpoint = {
    issuer,
    dpop: { db: ctx.db, clock: ctx.clock, nonces: app.dpopNonces },
    url: (request) => publicUrls(ctx.config, request).auth + TOKEN_PATH,
  };
  const failureLimiter = (name: string, limit: number) =>
    new FailureLimiter(ctx.db, ctx.pepper, name, { limit, windowMs: FAILURE_LIMITS.windowMs }, ctx.clock);
  const perIp = failureLimiter('token-ip', FAILURE_LIMITS.perIp);
  const perClient = failureLimiter('token-ip-client', FAILURE_LIMITS.perIpAndClient);
  onStop(app, 'onClose', scheduleTokenCleanup(ctx));
  // A client secret replaced or deleted on any process stops here at once.
  const unsubscribe = await busCodecs.revoked.subscribe(ctx.bus, ({ digest }) =>
    issuer.clients.forgetSecret(digest),
  );
  onStop(app, 'onClose', unsubscribe);
  for (const path of [TOKEN_PATH, REVOKE_PATH, INTROSPECT_PATH])
    renderPathErrors(app, path, (reply, status) =>
      sendOAuthError(reply, new OAuthError('invalid_request', 'unknown endpoint', {}, status)),
    );

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    acceptForms(scope);
    // Any other body (JSON included) is read, bounded, and refused by the handler as invalid_request.
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT },
      (_request, _body, done) => done(null, NOT_A_FORM),
    );

    scope.addHook('onRequest', async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const wait = await perIp.retryAfter([addressGroup(request.ip)]);
      if (wait > 0) throw tooManyFailures(wait);
    });

    scope.setErrorHandler(async (err: FastifyError | OAuthError, request, reply) => {
      const e = asOAuthError(err);
      if (e.statusCode >= 500)
        request.log.error({ err, route: request.routeOptions.url }, 'oauth request failed');
      else if (e.statusCode !== 429 && e.code !== 'use_dpop_nonce') {
        await perIp.fail([addressGroup(request.ip)]);
        await perClient.fail([`${addressGroup(request.ip)} ${namedClient(request)}`]);
      }
      sendOAuthError(reply, e);
    });

    /** Refuses a request when its IP and client have failed too often; else parses its form. */
    const admit = async (request: FastifyRequest): Promise<Params> => {
      const wait = await perClient.retryAfter([`${addressGroup(request.ip)} ${namedClient(request)}`]);
      if (wait > 0) throw tooManyFailures(wait);
      const form = formOf(request);
      if (!form)
        throw invalidRequest('the body must be a well-formed application/x-www-form-urlencoded form');
      return form;
    };

    scope.post(TOKEN_PATH, async (request, reply) => {
      const { body, headers } = await handleTokenRequest(endpoint, request, await admit(request));
      return reply.headers(headers).type('application/json; charset=utf-8').send(body);
    });
    scope.post(REVOKE_PATH, async (request, reply) => {
      await handleRevokeRequest(issuer, request, await admit(request));
      return reply.code(200).send();
    });
    scope.post(INTROSPECT_PATH, async (request, reply) => {
      const body = await handleIntrospectRequest(issuer, request, await admit(request));
      return reply.type('application/json; charset=utf-8').send(body);
    });
    refuseOtherMethods(scope);
  });
}
