/** Two Namazu servers on loopback for the upstream relay: the upstream, and a downstream relaying it. */
import { gunzipSync } from 'node:zlib';
import { WebSocket } from 'ws';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { openDb } from '../../src/db/open.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { UpstreamRelay, type UpstreamOptions } from '../../src/sources/upstream.ts';
import type { TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

export const RELAY_SCOPES = ['socket.start', 'telegram.list', 'telegram.data', 'telegram.get.earthquake'];

/** An API key of a new account of `server` contracting earthquake telegrams and 5 more connections. */
export async function relayKey(server: TestServer): Promise<string> {
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake', 'websocket.plus5'] });
  return server.createApiKey(account.id, RELAY_SCOPES);
}

/** Ingests telegrams into a server's own pipeline (as `namazu ingest` would). */
export async function ingestInto(server: TestServer, bodies: readonly Buffer[]): Promise<void> {
  for (const raw of bodies) {
    const outcome = await ingestTelegram(server.ctx, raw, { receivedTime: Date.now() });
    if (!outcome.ok) throw new Error(outcome.reason);
  }
}

/** Ingests telegrams into a stopped server's database, as another process would while it is down. */
export async function ingestWhileDown(database: TestDatabase, bodies: readonly Buffer[]): Promise<void> {
  const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
  try {
    for (const raw of bodies) {
      const outcome = await ingestTelegram({ db, bus: createMemoryBus() }, raw, { receivedTime: Date.now() });
      if (!outcome.ok) throw new Error(outcome.reason);
    }
  } finally {
    await db.close();
  }
}

/** Starts (or restarts, on the same database and port) the upstream server. */
export function startUpstream(database: TestDatabase, port: number): Promise<TestServer> {
  // Pings every second, so that the relay's pongs show within a test.
  return startTestServer({ database, config: { port, pingIntervalMs: 1000 } });
}

export function startRelay(downstream: TestServer, options: Omit<UpstreamOptions, 'classifications'>) {
  const relay = new UpstreamRelay(downstream.ctx, {
    classifications: ['telegram.earthquake'],
    retryBaseMs: 100,
    // An upstream restart under load takes seconds: waits must not outgrow the tests' time-outs.
    retryMaxMs: 2000,
    ...options,
  });
  relay.start();
  return relay;
}

/** Waits until the relay has taken its position at the upstream (its first recovery ran). */
export async function relayPositioned(downstream: TestServer): Promise<void> {
  await waitFor(
    async () =>
      (await downstream.ctx.db.query(`SELECT 1 FROM source_positions WHERE source LIKE 'upstream %'`))
        .length > 0,
    { timeout: 15_000, message: 'the relay to take its position' },
  );
}

/** A WebSocket client of a server that records the `data` messages it receives, decoded. */
export interface Subscriber {
  received: { id: string; xml: Buffer; receivedAt: number }[];
  close(): void;
}

export async function subscribe(server: TestServer): Promise<Subscriber> {
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake', 'websocket.plus5'] });
  const key = await server.createApiKey(account.id, ['socket.start', 'telegram.get.earthquake']);
  const res = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    body: JSON.stringify({ classifications: ['telegram.earthquake'], test: 'including' }),
  });
  const started = (await res.json()) as { websocket: { url: string } };
  const ws = new WebSocket(started.websocket.url, ['service.v2'], { perMessageDeflate: false });
  const received: Subscriber['received'] = [];
  ws.on('message', (data: Buffer) => {
    const receivedAt = performance.now();
    const m = JSON.parse(data.toString()) as { type: string; id: string; body: string; compression: string };
    if (m.type === 'ping')
      ws.send(JSON.stringify({ type: 'pong', pingId: (m as { pingId?: string }).pingId }));
    if (m.type !== 'data') return;
    const bytes = Buffer.from(m.body, 'base64');
    received.push({ id: m.id, xml: m.compression === 'gzip' ? gunzipSync(bytes) : bytes, receivedAt });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('message', () => resolve()); // `start`
    ws.once('error', reject);
  });
  return { received, close: () => ws.close() };
}
