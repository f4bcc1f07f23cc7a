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
import { registerApiReference } from './api/openapi.ts';
import { registerDataApi } from './api/routes.ts';
import { registerSocketApi } from './api/socket.ts';
import { registerWebhookApi } from './api/webhooks.ts';
import { registerAuthorize } from './oauth/authorize-endpoint.ts';
import { registerConsole } from './console/routes.ts';
import { buildApp } from './http/app.ts';
import { SharedBuffers } from './telegrams/shared-buffers.ts';
import type { App, Surface } from './http/surface.ts';
import { registerMetadata } from './oauth/metadata.ts';
import { registerTokenEndpoints } from './oauth/token-routes.ts';
import { registerOps } from './ops/routes.ts';
import { registerRealtime } from './realtime/service.ts';
import { createLogger, type Logger } from './log.ts';
import { createMetrics } from './metrics.ts';
import { StationLists } from './parameter/lists.ts';
import { startRetention, type Retention } from './retention/service.ts';
import { loadPepper } from './security/pepper.ts';
import { TelegramCache } from './telegrams/cache.ts';
import { createPreparePools } from './telegrams/ingest.ts';

/** Every surface of the service, in registration order. */
export const surfaces: readonly Surface[] = [
  registerApiReference, // first: the OpenAPI document lists the routes registered after it
  registerOps,
  registerMetadata,
  registerAuthorize,
  registerTokenEndpoints,
  registerConsole,
  registerDataApi,
  registerSocketApi,
  registerWebhookApi,
  registerRealtime,
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
    onShutdown: [stations.stop, telegrams.stop],
    stopping: stopping.signal,
  };
  const app = await buildApp(ctx, surfaces);
  if (options.listen !== false) await app.listen({ port: config.port, host: config.host });
  else await app.ready();
  const address = app.server.address() as AddressInfo | null;
  const retention = startRetention(ctx, config);
  ctx.onShutdown.push(() => retention.stop());

  let closing: Promise<void> | undefined;
  async function close(): Promise<void> {
    stopping.abort(new Error('the server is shutting down'));
    for (const fn of [...ctx.onShutdown].reverse()) {
      try {
        await fn();
      } catch (err) {
        log.warn({ err }, 'shutdown step failed');
      }
    }
    await app.close();
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
