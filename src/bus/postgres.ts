/**
 * The bus over PostgreSQL LISTEN/NOTIFY: no extra server, and a NOTIFY sent inside a transaction
 * is delivered only after COMMIT. One connection listens (re-listening after a reconnect), another
 * publishes. Payloads must stay under PostgreSQL's 8000-byte limit (bus/types.ts).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ChannelHandlers } from './handlers.ts';
import { BUS_CONNECT_TIMEOUT_MS, checkSilence, SILENCE_CHECK_MS } from './silence.ts';
import type { Bus } from './types.ts';

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
const RECONNECT_MS = 500;

function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel)) throw new Error(`invalid bus channel name: ${channel}`);
}

/** The listening connection's `application_name`, for an operator to find it among the server's. */
export const LISTENER_APPLICATION_NAME = 'namazu-bus-listener';

export async function createPostgresBus(
  url: string,
  onError: (err: unknown) => void = () => {},
): Promise<Bus> {
  const handlers = new ChannelHandlers(onError);
  const ownSuffix = `,"origin":"${randomUUID()}"}`;
  const publisher = new pg.Pool({
    connectionString: url,
    max: 2,
    connectionTimeoutMillis: BUS_CONNECT_TIMEOUT_MS,
    query_timeout: BUS_CONNECT_TIMEOUT_MS,
  });
  publisher.on('error', onError);
  let listener: pg.Client | null = null;
  let closed = false;

  async function connectListener(): Promise<void> {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: BUS_CONNECT_TIMEOUT_MS,
      // Named in pg_stat_activity: its last query is the silence check's as often as a LISTEN.
      application_name: LISTENER_APPLICATION_NAME,
    });
    client.on('notification', (m) => {
      const payload = m.payload ?? '';
      // This process's own commit notices are handed over by the committing code (types.ts).
      if (!payload.endsWith(ownSuffix)) handlers.deliver(m.channel, payload);
    });
    const lost = (err?: unknown) => {
      if (err) onError(err);
      if (listener !== client || closed) return;
      listener = null;
      client.end().catch(() => {});
      const retry = () =>
        connectListener().catch((e: unknown) => {
          onError(e);
          if (!closed) setTimeout(retry, RECONNECT_MS).unref();
        });
      setTimeout(retry, RECONNECT_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    for (const channel of handlers.channels()) await client.query(`LISTEN "${channel}"`);
    listener = client;
    const stopChecks = checkSilence(
      () => client.query('SELECT 1'),
      () => listener === client,
      // end() destroys a connection whose query is still waiting, which ends it here (`lost`).
      () => lost(new Error(`bus listener silent for ${SILENCE_CHECK_MS} ms; reconnecting`)),
    );
    client.once('end', stopChecks);
  }
  await connectListener();

  return {
    commitNotices: { ownSuffix, deliverHere: (channel, payload) => handlers.deliver(channel, payload) },
    async publish(channel, payload) {
      checkChannel(channel);
      await publisher.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async subscribe(channel, handler) {
      checkChannel(channel);
      if (handlers.add(channel, handler)) await listener?.query(`LISTEN "${channel}"`);
      return async () => {
        if (handlers.remove(channel, handler)) await listener?.query(`UNLISTEN "${channel}"`).catch(onError);
      };
    },
    async close() {
      closed = true;
      handlers.clear();
      const client = listener;
      listener = null;
      await client?.end().catch(() => {});
      await publisher.end();
    },
  };
}
