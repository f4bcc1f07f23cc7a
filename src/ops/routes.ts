import type { App } from '../http/surface.ts';
import type { AppContext } from '../context.ts';

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

  app.get('/metrics', async (_request, reply) => {
    reply.type(ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  });
}
