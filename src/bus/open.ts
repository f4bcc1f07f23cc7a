import type { Config } from '../config.ts';
import { createMemoryBus } from './memory.ts';
import type { Bus } from './types.ts';

/** The bus adapter chosen by configuration; network adapters are loaded only when chosen. */
export async function openBus(config: Pick<Config, 'bus' | 'databaseUrl' | 'redisUrl'>): Promise<Bus> {
  switch (config.bus) {
    case 'memory':
      return createMemoryBus();
    case 'postgres':
      return (await import('./postgres.ts')).createPostgresBus(config.databaseUrl!);
    case 'redis':
      return (await import('./redis.ts')).createRedisBus(config.redisUrl!);
  }
}
