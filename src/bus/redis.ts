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
import type { Bus } from './types.ts';

/**
 * The subscriber is pinged this often, and reconnected when it has not answered by the next time: a
 * connection whose peer went silent (a NAT or firewall that forgot it, a host gone) brings neither
 * an error nor an end, and would otherwise never hear another message.
 */
const SUBSCRIBER_CHECK_MS = 3000;

export async function createRedisBus(url: string, onError: (err: unknown) => void = () => {}): Promise<Bus> {
  const handlers = new ChannelHandlers(onError);
  const prefix = `db${Number(new URL(url).pathname.slice(1)) || 0}:`;
  const options = { maxRetriesPerRequest: 3, lazyConnect: true, autoResubscribe: true };
  const subscriber = new Redis(url, options);
  const publisher = new Redis(url, options);
  subscriber.on('error', onError);
  publisher.on('error', onError);
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
  let unanswered = false;
  const checks = setInterval(() => {
    // While reconnecting, ioredis retries by itself.
    if (subscriber.status !== 'ready') return void (unanswered = false);
    // Decided after this turn's I/O is read: an answer that came while the loop was busy counts.
    if (unanswered)
      return void setImmediate(() => {
        if (!unanswered || subscriber.status !== 'ready') return;
        unanswered = false;
        onError(new Error(`bus subscriber silent for ${SUBSCRIBER_CHECK_MS} ms; reconnecting`));
        subscriber.disconnect(true);
      });
    unanswered = true;
    const answered = () => (unanswered = false);
    subscriber.ping().then(answered, answered);
  }, SUBSCRIBER_CHECK_MS);
  checks.unref();

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
      clearInterval(checks);
      handlers.clear();
      await Promise.all([subscriber.quit().catch(() => {}), publisher.quit().catch(() => {})]);
    },
  };
}
