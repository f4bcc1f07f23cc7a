import type { Bus } from '../bus/types.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/types.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { TelegramCache } from '../telegrams/cache.ts';
import type { PreparePools } from '../telegrams/ingest.ts';

/** What a network source needs of its process (a subset of the AppContext every process has). */
export interface SourceDeps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  config: Pick<Config, 'maxTelegramBytes'>;
  /** The process's prepare runners (AppContext.preparePools): large telegrams are prepared there. */
  preparePools?: PreparePools;
  /** The process's telegram cache (AppContext.telegrams): ingest hands its commits to it. */
  telegrams?: TelegramCache;
}
