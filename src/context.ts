import cluster from 'node:cluster';
import type { Bus } from './bus/types.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/types.ts';
import type { TelegramCache } from './telegrams/cache.ts';
import type { IngestDeps, PreparePools } from './telegrams/ingest.ts';
import type { IngestSource } from './telegrams/ingest-metrics.ts';
import type { SharedBuffers } from './telegrams/shared-buffers.ts';
import type { Logger } from './log.ts';
import type { Metrics } from './metrics.ts';
import type { StationLists } from './parameter/lists.ts';

/** What every surface and domain service of one running process shares. */
export interface AppContext {
  config: Config;
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /** HMAC key for stored secrets (src/security/secrets.ts). */
  pepper: Buffer;
  /** Shared memory that large request bodies are read into, lent and given back (src/telegrams/shared-buffers.ts). */
  uploadBuffers: SharedBuffers;
  /** The station lists served (imported or built in), kept current from the bus (src/parameter/lists.ts). */
  stations: StationLists;
  /** The runners large and bulk telegrams are prepared on (src/telegrams/ingest.ts). */
  preparePools: PreparePools;
  /**
   * The process's newest telegrams (src/telegrams/cache.ts): the data API and the console answer from
   * it, and ingest hands each commit to it, which wakes the real-time delivery and the webhook queuer.
   */
  telegrams: TelegramCache;
  /**
   * Aborted the moment a stop begins, before the app begins to close: /readyz answers 503 from then
   * on, and timed jobs (scenarios, replays, admin commands) stop on it. Its reason says why.
   */
  stopping: AbortSignal;
}

/** What ingest needs of a serving process, for telegrams that come in through `source`. */
export function ingestDepsOf(ctx: AppContext, source: IngestSource): IngestDeps {
  const { db, bus, config, metrics, preparePools, telegrams } = ctx;
  return { db, bus, config, metrics, preparePools, telegrams, source };
}

/**
 * The name this process goes by in the session list and in a telegram's `passing`: the server's
 * name, and the worker's number when it is one of several workers of one host.
 */
export function processServerName(ctx: Pick<AppContext, 'config'>): string {
  return cluster.isWorker ? `${ctx.config.serverName}#${cluster.worker!.id}` : ctx.config.serverName;
}
