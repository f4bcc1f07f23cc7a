import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { openBus } from './bus/open.ts';
import type { Bus } from './bus/types.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { migrate } from './db/migrate.ts';
import { openDb } from './db/open.ts';
import type { Db } from './db/types.ts';
import { apiReference } from './api/openapi.ts';
import { dataApi } from './api/routes.ts';
import { socketApi } from './api/socket.ts';
import { webhookApi } from './api/webhooks.ts';
import { authorize } from './oauth/authorize-endpoint.ts';
import { webConsole } from './console/routes.ts';
import { buildApp } from './http/app.ts';
import { sharedPlugin, sharedPlugins, surfacePlugin } from './http/plugins.ts';
import { onStop } from './http/stop.ts';
import { SharedBuffers } from './telegrams/shared-buffers.ts';
import type { App, AppPlugin } from './http/surface.ts';
import { oauthMetadata } from './oauth/metadata.ts';
import { tokenEndpoints } from './oauth/token-routes.ts';
import { ops } from './ops/routes.ts';
import { registerRealtime } from './realtime/service.ts';
import { createLogger, type Logger } from './log.ts';
import { createMetrics } from './metrics.ts';
import { StationLists } from './parameter/lists.ts';
import { startRetention, type Retention } from './retention/service.ts';
import { loadPepper } from './security/pepper.ts';
import { TELEGRAM_CACHE_BYTES, TelegramCache } from './telegrams/cache.ts';
import { PAGE_CACHE_BYTES } from './telegrams/page-cache.ts';
import { createPreparePools } from './telegrams/ingest.ts';
import { zeroConversionFailures } from './telegrams/ingest-metrics.ts';
import { KEPT_PAYLOAD_BYTES } from './webhooks/payload.ts';
import { startWebhooks } from './webhooks/service.ts';

/**
 * The process's one webhook delivery, started with the app and stopped with it: `app.webhooks`, for
 * the webhook API and the console's webhooks area (docs/webhooks.md).
 */
const webhookDelivery: AppPlugin = sharedPlugin(sharedPlugins.webhooks, async (app, { ctx }) => {
  const webhooks = await startWebhooks(ctx);
  app.decorate('webhooks', webhooks);
  onStop(app, 'preClose', () => webhooks.stop());
});

/**
 * The most a process holds in all its caches of telegrams, rows, answers and webhook payloads
 * (docs/operations.md "Memory": 128 MiB + `NAMAZU_ANSWER_CACHE_BYTES`).
 */
export const cachesBoundBytes = (config: Pick<Config, 'answerCacheBytes'>): number =>
  TELEGRAM_CACHE_BYTES + PAGE_CACHE_BYTES + KEPT_PAYLOAD_BYTES + config.answerCacheBytes;

/** Every surface of the service, in registration order: plugins registered with `{ ctx }`. */
export const surfaces: readonly AppPlugin[] = [
  apiReference, // first: the OpenAPI document lists the routes registered after it
  webhookDelivery,
  ops,
  oauthMetadata,
  authorize,
  tokenEndpoints,
  webConsole,
  dataApi,
  socketApi,
  webhookApi,
  surfacePlugin('namazu-realtime', registerRealtime, [
    sharedPlugins.authentication,
    sharedPlugins.localSockets,
  ]),
];

export interface RunningServer {
  app: App;
  ctx: AppContext;
  /** The bound port (useful with port 0). */
  port: number;
  /** Pruning and store statistics (docs/operations.md "Retention"). */
  retention: Retention;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  logger?: Logger;
  /** Listen on the configured host and port (default true). False builds the app only. */
  listen?: boolean;
  /** A bus to use instead of the configured one (closed with the server). */
  bus?: Bus;
  /**
   * Plugins of the caller, registered with `{ ctx }` after the surfaces (`namazu serve`: the admin
   * channel and the sources). What one starts, it stops in the app's `preClose` or `onClose` hooks.
   */
  plugins?: readonly AppPlugin[];
  /**
   * The configured database, already opening (closed with the server): `namazu serve` starts the
   * embedded one before it loads this module and the others of the server, so that both overlap.
   */
  db?: Promise<Db>;
}

/**
 * How far V8 lets the old generation grow past what survived the last full collection, in percent.
 * V8's own factor follows its collection speed against the allocation rate: for a server that
 * allocates little between bursts it keeps the limit a few MB above the live heap, and a burst (a
 * telegram of megabytes arriving) then runs full collections back to back, each pausing the event
 * loop 10–30 ms here. Doubling costs at most the live heap again (docs/telegrams.md, "Size").
 */
const HEAP_GROWING_PERCENT = 100;

/** Opens the database (migrating it), the bus and the app, and starts listening. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const log = options.logger ?? createLogger(config.logLevel);
  // Read at each scrape, once the database is open.
  const metrics = createMetrics({ dbPoolWaiting: () => db.poolWaiting?.() ?? 0 });
  zeroConversionFailures(metrics);
  const db = await (options.db ??
    openDb({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.dbPoolSize,
      onPoolWait: (seconds) => metrics.dbPoolWait.observe(seconds),
    }));
  let bus;
  try {
    await migrate(db);
    bus =
      options.bus ??
      (await openBus(config, (err) => log.error({ err }, 'bus subscriber or connection failed')));
  } catch (err) {
    await db.close();
    throw err;
  }
  const stopping = new AbortController();
  const stations = await StationLists.start(db, bus);
  const telegrams = await TelegramCache.start(db, bus);
  const ctx: AppContext = {
    config,
    db,
    bus,
    clock: options.clock ?? systemClock,
    log,
    metrics,
    pepper: await loadPepper(db, config.secret),
    uploadBuffers: new SharedBuffers(),
    stations: stations.lists,
    preparePools: createPreparePools(),
    telegrams: telegrams.cache,
    stopping: stopping.signal,
  };
  const app = await buildApp(ctx, [...surfaces, ...(options.plugins ?? [])]);
  const retention = startRetention(ctx, config);
  // Once the app has closed (its requests ended, its surfaces stopped): what the server started
  // for the surfaces, the caches last (`onClose` hooks run newest first).
  onStop(app, 'onClose', stations.stop);
  onStop(app, 'onClose', telegrams.stop);
  onStop(app, 'onClose', () => retention.stop());
  if (options.listen !== false) await app.listen({ port: config.port, host: config.host });
  else await app.ready();
  const address = app.server.address() as AddressInfo | null;

  let closing: Promise<void> | undefined;
  /**
   * The stop (docs/architecture.md "Stopping"): `stopping` aborted first (/readyz answers 503, timed
   * jobs stop); then the app closes: its `preClose` hooks (what brings telegrams in, the real-time
   * connections closed with 4503 and their sessions recorded, the live view's streams), the HTTP
   * server once its requests have ended, its `onClose` hooks (timers, subscriptions, retention,
   * caches); the bus and the database last.
   */
  async function close(): Promise<void> {
    stopping.abort(new Error('the server is shutting down'));
    await app.close().catch((err: unknown) => log.warn({ err }, 'shutdown step failed'));
    await bus!.close();
    await db.close();
  }
  return {
    app,
    ctx,
    port: address?.port ?? config.port,
    retention,
    close: () => (closing ??= close()),
  };
}
