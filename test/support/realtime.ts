/** Test helpers for the real-time endpoint: a real HTTP server, real `ws` clients. */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { ManualClock } from '../../src/clock.ts';
import type { OpenedSession, Refusal, SessionGate } from '../../src/realtime/gate.ts';
import { clientAddress } from '../../src/http/client-address.ts';
import {
  answerAsRequest,
  attachWebSocketEndpoint,
  type WebSocketEndpoint,
} from '../../src/realtime/endpoint.ts';
import { Heartbeat, type HeartbeatOptions } from '../../src/realtime/heartbeat.ts';
import { Hub } from '../../src/realtime/hub.ts';
import type { TelegramRecord } from '../../src/telegrams/record.ts';
import { auth } from './processes.ts';
import type { TestServer } from './server.ts';

/** Tickets held in memory: single-use, like the real store; for tests of the protocol alone. */
export class MemoryGate implements SessionGate {
  readonly tickets = new Map<string, OpenedSession | Refusal>();
  readonly closedIds: number[] = [];
  open(ticket: string): Promise<OpenedSession | Refusal> {
    const session = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    return Promise.resolve(session ?? { code: 4404, message: 'The ticket is invalid, used or expired.' });
  }
  closed(socketId: number): void {
    this.closedIds.push(socketId);
  }
}

export async function startEndpoint(
  opts: {
    chunkSize?: number;
    maxBufferedBytes?: number;
    closeGraceMs?: number;
    heartbeat?: Omit<HeartbeatOptions, 'timeoutMs'>;
  } = {},
) {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00.000Z'));
  const hub = new Hub({ chunkSize: opts.chunkSize ?? 256 });
  const heartbeat = new Heartbeat(hub, clock, { timeoutMs: 120_000, ...opts.heartbeat });
  const gate = new MemoryGate();
  // The app's answer to a request that is no upgrade the endpoint takes: 404, or 503 once it closes
  // (as Fastify's `return503OnClosing`, whose closing precedes the endpoint's).
  let closing = false;
  const answer = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(closing ? 503 : 404).end();
  const server = createServer(answer);
  const attached = attachWebSocketEndpoint(server, {
    hub,
    heartbeat,
    gate,
    clock,
    maxBufferedBytes: opts.maxBufferedBytes ?? 1 << 20,
    maxClientMessageBytes: 4096,
    closeGraceMs: opts.closeGraceMs ?? 5000,
    clientAddress: (req) => clientAddress(req, 0),
    passOn: answerAsRequest(answer),
  });
  const endpoint: WebSocketEndpoint = {
    close(code, message) {
      closing = true;
      attached.close(code, message);
    },
  };
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    clock,
    hub,
    heartbeat,
    gate,
    endpoint,
    base: `ws://127.0.0.1:${port}`,
    url: (ticket: string) => `ws://127.0.0.1:${port}/v2/websocket?ticket=${ticket}`,
    async stop() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A `ws` client that queues what it receives, so tests can await messages in order. */
export class TestClient {
  readonly ws: WebSocket;
  private readonly queue: unknown[] = [];
  private readonly waiters: ((m: unknown) => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(url: string, protocols?: string | string[]) {
    this.ws = new WebSocket(url, protocols, { perMessageDeflate: false });
    this.ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as unknown;
      const waiter = this.waiters.shift();
      if (waiter) waiter(msg);
      else this.queue.push(msg);
    });
    this.ws.on('error', () => {}); // tests that expect a refused handshake listen themselves
    this.closed = new Promise((resolve) =>
      this.ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  next<T = Record<string, unknown>>(): Promise<T> {
    const msg = this.queue.shift();
    if (msg !== undefined) return Promise.resolve(msg as T);
    return new Promise((resolve) => this.waiters.push(resolve as (m: unknown) => void));
  }

  get pending(): number {
    return this.queue.length;
  }

  send(value: unknown): void {
    this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  /** A client of the session at `url`, past its `start` message. */
  static async pastStart(url: string, protocols?: string | string[]): Promise<TestClient> {
    const client = new TestClient(url, protocols);
    assert.equal((await client.next()).type, 'start');
    return client;
  }
}

/** The session `POST /v2/socket` with API key `key` started (asserted: 200): its id and WebSocket URL. */
export async function startSocket(
  origin: string,
  key: string,
  body: Record<string, unknown>,
): Promise<{ id: number; url: string }> {
  const res = await fetch(`${origin}/v2/socket`, {
    method: 'POST',
    headers: auth(key),
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { websocket: { id: number; url: string } };
  assert.equal(res.status, 200, JSON.stringify(json));
  return json.websocket;
}

/** An API key of `scopes` of a new account contracted for `classifications`. */
export async function newAccountKey(
  server: TestServer,
  classifications: readonly string[],
  scopes: readonly string[],
): Promise<string> {
  const { account } = await server.createAccount({ contracts: [...classifications] });
  return server.createApiKey(account.id, [...scopes]);
}

/**
 * The WebSocket URL of a session of a new account (an account's connections are limited),
 * contracted for `classifications` and started for them with a key of `scopes` and `filters`.
 */
export async function newAccountSocket(
  server: TestServer,
  options: {
    classifications: readonly string[];
    scopes: readonly string[];
    filters?: Record<string, unknown>;
  },
): Promise<string> {
  const key = await newAccountKey(server, options.classifications, options.scopes);
  const body = { classifications: options.classifications, ...options.filters };
  return (await startSocket(server.url, key, body)).url;
}

let serial = 0;
/** A synthetic telegram record (real-time tests need no database). */
export function record(
  over: Partial<TelegramRecord> & { type?: string; test?: boolean } = {},
): TelegramRecord {
  const body = over.body ?? Buffer.from(`<Report>${'x'.repeat(64)}</Report>`);
  const type = over.type ?? 'VXSE53';
  return {
    serial: over.serial ?? ++serial,
    id: createHash('sha384').update(body).digest('hex'),
    classification: over.classification ?? 'telegram.earthquake',
    head: {
      type,
      author: 'JPOS',
      time: '2026-01-01T00:00:00.000Z',
      designation: null,
      test: over.test ?? false,
      xml: (over.format ?? 'xml') === 'xml',
    },
    receivedTime: '2026-01-01T00:00:01.000Z',
    format: over.format ?? 'xml',
    xmlReport: null,
    compression: 'compression' in over ? (over.compression ?? null) : 'gzip',
    encoding: over.encoding ?? 'base64',
    body,
  };
}
