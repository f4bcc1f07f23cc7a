import type { Config } from '../config.ts';
import { createMemoryBus } from './memory.ts';
import { createPostgresBus } from './postgres.ts';
import { createRedisBus } from './redis.ts';
import type { Bus } from './types.ts';

/** The bus adapter chosen by configuration. */
export async function openBus(config: Pick<Config, 'bus' | 'databaseUrl' | 'redisUrl'>): Promise<Bus> {
  switch (config.bus) {
    case 'memory':
      return createMemoryBus();
    case 'postgres':
      return createPostgresBus(config.databaseUrl!);
    case 'redis':
      return createRedisBus(config.redisUrl!);
    default:
      throw new Error(`bus adapter ${config.bus} is not available in this build`);
  }
}
