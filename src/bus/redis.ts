/**
 * The bus over Redis pub/sub: for deployments that run Redis anyway. One connection subscribes
 * (ioredis re-subscribes after a reconnect), another publishes.
 *
 * Redis pub/sub ignores database numbers, so channel names carry the number of the URL
 * (`redis://host/3` → `db3:namazu_telegram`): installations sharing one Redis server stay apart by
 * using different database numbers.
 */
import { Redis } from 'ioredis';
import { ChannelHandlers } from './handlers.ts';
import { BUS_CONNECT_TIMEOUT_MS, checkSilence, SILENCE_CHECK_MS } from './silence.ts';
import type { Bus } from './types.ts';

export async function createRedisBus(url: string, onError: (err: unknown) => void = () => {}): Promise<Bus> {
  const handlers = new ChannelHandlers(onError);
  const prefix = `db${Number(new URL(url).pathname.slice(1)) || 0}:`;
  const options = { maxRetriesPerRequest: 3, lazyConnect: true, autoResubscribe: true };
  const subscriber = new Redis(url, { ...options, connectTimeout: BUS_CONNECT_TIMEOUT_MS });
  // A publish waits for no connection that stopped answering (the subscriber has its silence check).
  const publisher = new Redis(url, {
    ...options,
    connectTimeout: BUS_CONNECT_TIMEOUT_MS,
    commandTimeout: BUS_CONNECT_TIMEOUT_MS,
  });
  subscriber.on('error', onError);
  publisher.on('error', onError);
  // ioredis times the TCP connection alone: a connection accepted and never answered would wait for
  // its ready check forever. Not ready in time, it is dropped, and ioredis connects again.
  let handshake: NodeJS.Timeout | null = null;
  subscriber.on('connect', () => {
    handshake = setTimeout(() => {
      if (subscriber.status === 'connect') subscriber.disconnect(true);
    }, BUS_CONNECT_TIMEOUT_MS).unref();
  });
  subscriber.on('ready', () => handshake && clearTimeout(handshake));
  subscriber.on('message', (channel: string, payload: string) =>
    handlers.deliver(channel.slice(prefix.length), payload),
  );
  try {
    await Promise.all([subscriber.connect(), publisher.connect()]);
  } catch (err) {
    subscriber.disconnect();
    publisher.disconnect();
    throw err;
  }
  const stopChecks = checkSilence(
    () => subscriber.ping(),
    // While reconnecting, ioredis retries by itself.
    () => subscriber.status === 'ready',
    () => {
      onError(new Error(`bus subscriber silent for ${SILENCE_CHECK_MS} ms; reconnecting`));
      subscriber.disconnect(true);
    },
  );

  return {
    async publish(channel, payload) {
      await publisher.publish(prefix + channel, payload);
    },
    async subscribe(channel, handler) {
      if (handlers.add(channel, handler)) await subscriber.subscribe(prefix + channel);
      return async () => {
        if (handlers.remove(channel, handler)) await subscriber.unsubscribe(prefix + channel).catch(onError);
      };
    },
    async close() {
      stopChecks();
      if (handshake) clearTimeout(handshake);
      handlers.clear();
      await Promise.all([subscriber.quit().catch(() => {}), publisher.quit().catch(() => {})]);
    },
  };
}
