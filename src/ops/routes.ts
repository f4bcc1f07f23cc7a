import type { FastifyRequest } from 'fastify';
import { HttpError } from '../http/errors.ts';
import { authorizationOf, readCredential } from '../security/credential-reader.ts';
import { safeEqual } from '../security/secrets.ts';
import type { App } from '../http/surface.ts';
import type { AppContext } from '../context.ts';
import { surfacePlugin } from '../http/plugins.ts';

/**
 * Without NAMAZU_METRICS_TOKEN, /metrics answers loopback clients only; a request relayed by a
 * proxy (X-Forwarded-For) counts as coming from outside unless the proxy is trusted, and then the
 * forwarded client address decides (docs/security.md).
 */
function mayReadMetrics(request: FastifyRequest, trustProxy: number): boolean {
  if (trustProxy === 0 && request.headers['x-forwarded-for'] !== undefined) return false;
  // request.ip is the peer's address unless the proxy is trusted (http/client-address.ts).
  return isLoopback(request.ip);
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

/** A readiness probe waits this long for the database before it says not ready. */
const READY_PROBE_TIMEOUT_MS = 2000;

/**
 * Why the database cannot serve, or null when it answers: the error's code (ECONNREFUSED, 57P01…)
 * or a time-out, never its message, which may name hosts and users.
 */
async function databaseProblem(ctx: AppContext): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`the database did not answer within ${READY_PROBE_TIMEOUT_MS} ms`),
      READY_PROBE_TIMEOUT_MS,
    );
  });
  const probe = ctx.db.query('SELECT 1').then(
    () => null,
    (err: { code?: unknown }) =>
      `the database failed the probe query${typeof err?.code === 'string' ? ` (${err.code})` : ''}`,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness, readiness and Prometheus metrics (`/metrics` reads its credential itself). */
export const ops = surfacePlugin('namazu-ops', registerOps);

function registerOps(app: App, ctx: AppContext): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    if (ctx.stopping.aborted)
      return reply.code(503).send({ status: 'shutting down', reason: 'the server is stopping' });
    const problem = await databaseProblem(ctx);
    if (problem === null) return { status: 'ready' };
    return reply.code(503).send({ status: 'database unavailable', reason: problem });
  });

  app.get('/metrics', async (request, reply) => {
    const { metricsToken, trustProxy } = ctx.config;
    if (metricsToken !== null) {
      const { credential } = readCredential(authorizationOf(request.raw.rawHeaders) ?? '');
      const presented = credential?.scheme === 'Bearer' ? credential.token : '';
      if (!safeEqual(presented, metricsToken))
        throw new HttpError('AUTH_REQUIRED', { headers: { 'www-authenticate': 'Bearer realm="metrics"' } });
    } else if (!mayReadMetrics(request, trustProxy)) {
      throw new HttpError('NOT_FOUND');
    }
    reply.type(ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  });
}
