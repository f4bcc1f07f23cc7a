import type { FastifyRequest } from 'fastify';
import { HttpError, messages } from '../http/errors.ts';
import { safeEqual } from '../security/secrets.ts';
import type { App } from '../http/surface.ts';
import type { AppContext } from '../context.ts';

/**
 * Without NAMAZU_METRICS_TOKEN, /metrics answers loopback clients only; a request relayed by a
 * proxy (X-Forwarded-For) counts as coming from outside unless the proxy is trusted, and then the
 * forwarded client address decides (docs/security.md).
 */
function mayReadMetrics(request: FastifyRequest, trustProxy: boolean): boolean {
  if (!trustProxy && request.headers['x-forwarded-for'] !== undefined) return false;
  const address = trustProxy ? request.ip : request.socket.remoteAddress;
  return address !== undefined && isLoopback(address);
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

/** Liveness, readiness and Prometheus metrics. */
export function registerOps(app: App, ctx: AppContext): void {
  let shuttingDown = false;
  ctx.onShutdown.push(() => {
    shuttingDown = true;
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    if (shuttingDown) return reply.code(503).send({ status: 'shutting down' });
    try {
      await ctx.db.query('SELECT 1');
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'database unavailable' });
    }
  });

  app.get('/metrics', async (request, reply) => {
    const { metricsToken, trustProxy } = ctx.config;
    if (metricsToken !== null) {
      const presented = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!safeEqual(presented, metricsToken))
        throw new HttpError(401, messages.authRequired, { 'www-authenticate': 'Bearer realm="metrics"' });
    } else if (!mayReadMetrics(request, trustProxy)) {
      throw new HttpError(404, messages.notFound);
    }
    reply.type(ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  });
}
