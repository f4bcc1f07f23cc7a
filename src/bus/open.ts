import type { Config } from '../config.ts';
import { createMemoryBus } from './memory.ts';
import type { Bus } from './types.ts';

/**
 * The bus adapter chosen by configuration; network adapters are loaded only when chosen. `onError`
 * hears subscribers that threw and, on network buses, lost connections.
 */
export async function openBus(
  config: Pick<Config, 'bus' | 'databaseUrl' | 'redisUrl'>,
  onError: (err: unknown) => void = () => {},
): Promise<Bus> {
  switch (config.bus) {
    case 'memory':
      return createMemoryBus(onError);
    case 'postgres':
      return (await import('./postgres.ts')).createPostgresBus(config.databaseUrl!, onError);
    case 'redis':
      return (await import('./redis.ts')).createRedisBus(config.redisUrl!, onError);
  }
}
