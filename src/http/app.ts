import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { AppContext } from '../context.ts';
import { authentication } from './authentication.ts';
import { clientErrorHandler, connectHandler } from './client-errors.ts';
import { errorBody } from './envelope.ts';
import { catalogueMessage, errorCatalogue, type CodedError, type ErrorCode } from '../errors.ts';
import { describeError } from './errors.ts';
import { MethodTable } from './method-table.ts';
import { localSockets } from './local-sockets.ts';
import { pathErrorRenderer, pathErrors } from './path-errors.ts';
import type { App, AppPlugin } from './surface.ts';
import { closeSilentConnectionsAtStop } from './silent-connections.ts';
import { uploadLimit } from './upload-limit.ts';
import { trustedHops } from './client-address.ts';

/**
 * The app of one process (docs/architecture.md "Assembly"): CORS, the shared plugins (the
 * authentication hook, the upload cap, the path error formats, the local socket closers), the data
 * API error envelope, 404/405, then each plugin of `plugins` in order, registered with `{ ctx }`.
 * A surface is an encapsulated plugin and may set its own error handler there (OAuth JSON errors,
 * plain-text bodies, HTML pages); everything else is answered with the envelope below.
 */
export async function buildApp(ctx: AppContext, plugins: readonly AppPlugin[]): Promise<App> {
  const logger: FastifyBaseLogger = ctx.log;
  const app: App = Fastify({
    loggerInstance: logger,
    // Per-request log lines cost the hot path; latency is in /metrics instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: ctx.config.bodyLimit,
    // Route schemas compiled without ajv's optimising passes: less CPU at start, no slower to run
    // (as for the conversions' schemas, src/conversion/validate.ts).
    ajv: { customOptions: { code: { optimize: false } } },
    trustProxy: trustedHops(ctx.config.trustProxy),
    // Telegram ids and tokens are long; Fastify's default 100 is enough, but keep it explicit.
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: false },
    // While the app closes, requests are answered as usual (with `Connection: close`): /readyz says
    // why it is not ready, and a request already on its way is served; what would hold the server
    // open (sockets, streams) is closed in `preClose` and refuses new ones (docs/operations.md).
    return503OnClosing: false,
    // A path that is not valid percent-encoding, or an id longer than any id, names nothing: 404
    // in the format of the surface the path belongs to, never Fastify's own error body.
    frameworkErrors: (_err, request, reply) => {
      sendNotFound(app, request.url, reply, 404, catalogueMessage('NOT_FOUND'), ctx.clock.now());
    },
    clientErrorHandler: clientErrorHandler(() => ctx.clock.now()),
    requestTimeout: ctx.config.requestTimeoutMs,
    keepAliveTimeout: ctx.config.keepAliveTimeoutMs,
    connectionTimeout: ctx.config.idleTimeoutMs,
    // Request and header time-outs are enforced on this period; Node's default is 30 s.
    http: { headersTimeout: ctx.config.headersTimeoutMs, connectionsCheckingInterval: 1000 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.server.on(
    'connect',
    connectHandler(() => ctx.clock.now()),
  );

  const methods = new MethodTable();
  app.addHook('onRoute', (route) => {
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) methods.add(m, route.url);
  });

  // A callback hook: an async one costs every request a promise and a microtask.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unknown';
    ctx.metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });

  await app.register(cors, {
    origin: '*',
    // Last-Event-ID: a page of another origin resuming the stream (GET /v2/stream) by hand.
    allowedHeaders: ['Authorization', 'Content-Type', 'DPoP', 'Last-Event-ID'],
    exposedHeaders: ['DPoP-Nonce', 'WWW-Authenticate', 'Retry-After'],
    maxAge: 600,
  });

  await app.register(authentication, { ctx });
  await app.register(uploadLimit, {
    perAddress: ctx.config.maxUploadsPerAddress,
    total: ctx.config.maxUploads,
  });
  await app.register(pathErrors, { ctx });
  await app.register(localSockets, { ctx });

  app.setErrorHandler((err: FastifyError | CodedError, request, reply) => {
    const { status, message, headers } = describeError(err);
    if (status >= 500) request.log.error({ err, route: request.routeOptions.url }, 'request failed');
    reply
      .code(status)
      .headers(headers)
      .type('application/json; charset=utf-8')
      .send(errorBody(status, message, ctx.clock.now()));
  });

  /**
   * A request that reached no route: 404, or 405 for a known path, in the format of the surface its
   * path belongs to (the envelope by default).
   */
  const noRoute = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    let code: ErrorCode = methods.knows(path) ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND';
    // Once the server stops, the real-time endpoint passes every upgrade on: come back, not "no such path".
    if (ctx.stopping.aborted && request.headers.upgrade !== undefined) code = 'BUSY';
    sendNotFound(
      app,
      request.url,
      reply,
      errorCatalogue[code].status,
      catalogueMessage(code),
      ctx.clock.now(),
    );
  };
  // Answered before its body is read: no route reads it, so a body that does not parse (or is too
  // large) never turns the 404 or 405 into a 400 or 413.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) noRoute(request, reply);
    else done();
  });
  app.setNotFoundHandler(noRoute);

  for (const plugin of plugins) await app.register(plugin, { ctx });
  closeSilentConnectionsAtStop(app);
  return app;
}

/** An error for a request that reached no route, in its surface's format (the envelope by default). */
function sendNotFound(
  app: App,
  url: string,
  reply: FastifyReply,
  status: number,
  message: string,
  now: number,
) {
  const render = pathErrorRenderer(app, url);
  if (render) return render(reply, status, message);
  reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(status, message, now));
}
