/**
 * The bus over PostgreSQL LISTEN/NOTIFY: no extra server, and a NOTIFY sent inside a transaction
 * is delivered only after COMMIT. One connection listens (re-listening after a reconnect), another
 * publishes. Payloads must stay under PostgreSQL's 8000-byte limit (bus/types.ts).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ChannelHandlers } from './handlers.ts';
import type { Bus } from './types.ts';

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
const RECONNECT_MS = 500;
/**
 * The listener is asked this often whether it still answers, and replaced when it has not answered
 * by the next time: a connection whose peer went silent (a NAT or firewall that forgot it, a host
 * gone) brings neither an error nor an end, and would otherwise never hear another notification.
 */
const LISTENER_CHECK_MS = 3000;

function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel)) throw new Error(`invalid bus channel name: ${channel}`);
}

export async function createPostgresBus(
  url: string,
  onError: (err: unknown) => void = () => {},
): Promise<Bus> {
  const handlers = new ChannelHandlers(onError);
  const ownSuffix = `,"origin":"${randomUUID()}"}`;
  const publisher = new pg.Pool({ connectionString: url, max: 2 });
  publisher.on('error', onError);
  let listener: pg.Client | null = null;
  let closed = false;

  async function connectListener(): Promise<void> {
    const client = new pg.Client({ connectionString: url });
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
    let unanswered = false;
    const checks = setInterval(() => {
      if (listener !== client) return clearInterval(checks);
      // Decided after this turn's I/O is read: an answer that came while the loop was busy counts.
      // end() destroys a connection whose query is still waiting, which ends it here (`lost`).
      if (unanswered)
        return void setImmediate(() => {
          if (unanswered && listener === client)
            lost(new Error(`bus listener silent for ${LISTENER_CHECK_MS} ms; reconnecting`));
        });
      unanswered = true;
      // A query that fails on a connection that ended is reported by the connection's events.
      const answered = () => (unanswered = false);
      client.query('SELECT 1').then(answered, answered);
    }, LISTENER_CHECK_MS);
    checks.unref();
    client.once('end', () => clearInterval(checks));
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
