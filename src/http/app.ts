import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import type { AppContext } from '../context.ts';
import { registerTokenEndpoints } from '../oauth/token-routes.ts';
import { registerDataApi } from '../api/routes.ts';
import { registerOps } from '../ops/routes.ts';
import { registerSocketApi } from '../api/socket.ts';
import { registerRealtime } from '../realtime/service.ts';
import { registerConsole } from '../console/routes.ts';
import { registerAuthorize } from '../console/authorize-routes.ts';
import { registerMetadata } from '../oauth/metadata.ts';
import { errorBody } from './envelope.ts';
import { HttpError, messages } from './errors.ts';
import { MethodTable } from './method-table.ts';

export type App = FastifyInstance;

/** A surface adds its routes (and hooks) to the app. */
export type Surface = (app: App, ctx: AppContext) => Promise<void> | void;

/**
 * Every surface of the service, in registration order. Each may set its own error handler inside
 * its encapsulated plugin (OAuth JSON errors, plain-text bodies, HTML pages); everything else is
 * answered with the data API envelope below.
 */
const surfaces: Surface[] = [
  registerOps,
  registerMetadata,
  registerAuthorize,
  registerTokenEndpoints,
  registerConsole,
  registerDataApi,
  registerSocketApi,
  registerRealtime,
];

/** Maps a validation failure to behaviour.md §3's messages. */
function validationMessage(err: FastifyError): string {
  const v = err.validation?.[0];
  if (err.validationContext === 'querystring' && v) {
    const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
    if (missing) return messages.queryRequired;
    const name =
      v.instancePath.split('/')[1] ?? (v.params as { additionalProperty?: string })?.additionalProperty;
    if (name) return messages.unexpectedQuery(name);
  }
  return err.message.replace(/^(body|querystring|params|headers)\/?/, '').trim() || 'Bad request.';
}

/** HTTP status and message for an error no handler dealt with. */
export function describeError(err: FastifyError | HttpError): { status: number; message: string } {
  if (err instanceof HttpError) return { status: err.statusCode, message: err.message };
  if (err.validation) return { status: 400, message: validationMessage(err) };
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: messages.payloadTooLarge };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'Unsupported media type.' };
    default:
      break;
  }
  // SQLSTATE class 22 (data exception: a NUL in text, an out-of-range number…) comes from input
  // that no valid request carries; domain code screens most of it, this is the safety net.
  if (typeof err.code === 'string' && /^22[0-9A-Z]{3}$/.test(err.code))
    return { status: 400, message: 'Bad request.' };
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500)
    return { status, message: status === 400 ? 'Bad request.' : err.message };
  return { status: 500, message: messages.serverError };
}

export async function buildApp(ctx: AppContext): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.log,
    // Per-request log lines cost the hot path; latency is in /metrics instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: ctx.config.bodyLimit,
    trustProxy: ctx.config.trustProxy,
    // Telegram ids and tokens are long; Fastify's default 100 is enough, but keep it explicit.
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: false },
    return503OnClosing: true,
    // The router rejects a path segment over maxParamLength or with an undecodable escape before
    // any route runs; such a path names nothing that exists, so it is the 404 envelope (behaviour.md §3).
    frameworkErrors: (err, _request, reply: FastifyReply) => {
      const { status, message } =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH' || err.code === 'FST_ERR_BAD_URL'
          ? { status: 404, message: messages.notFound }
          : describeError(err);
      void reply
        .code(status)
        .type('application/json; charset=utf-8')
        .send(errorBody(status, message, ctx.clock.now()));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const methods = new MethodTable();
  app.addHook('onRoute', (route) => {
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) methods.add(m, route.url);
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unknown';
    ctx.metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  await app.register(cors, {
    origin: '*',
    allowedHeaders: ['Authorization', 'Content-Type', 'DPoP'],
    exposedHeaders: ['DPoP-Nonce', 'WWW-Authenticate', 'Retry-After'],
    maxAge: 600,
  });

  app.setErrorHandler((err: FastifyError | HttpError, request, reply) => {
    const { status, message } = describeError(err);
    if (status >= 500) request.log.error({ err, route: request.routeOptions.url }, 'request failed');
    if (err instanceof HttpError) reply.headers(err.headers);
    reply
      .code(status)
      .type('application/json; charset=utf-8')
      .send(errorBody(status, message, ctx.clock.now()));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const status = methods.knows(path) ? 405 : 404;
    reply
      .code(status)
      .type('application/json; charset=utf-8')
      .send(
        errorBody(status, status === 405 ? messages.methodNotAllowed : messages.notFound, ctx.clock.now()),
      );
  });

  for (const surface of surfaces) await surface(app as unknown as App, ctx);
  return app as unknown as App;
}
