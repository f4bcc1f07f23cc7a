/**
 * A local stand-in for a hostile or broken `service.v2` upstream of the relay: it grants every
 * socket, says `start` on it, and answers `GET /v2/telegram` and every other GET as the test says.
 * It records every request with its headers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

export interface FakeUpstream {
  origin: string;
  requests: { method: string; path: string; headers: IncomingMessage['headers'] }[];
  /** Answers `GET /v2/telegram` (default: an empty page). */
  list: Handler;
  /** Answers every other GET (default: 404). */
  other: Handler;
  /** Called with every socket once it was sent `start` (default: nothing). */
  onSocket: (ws: WebSocket) => void;
  /** Sends a message on every open socket. */
  send(message: object | null): void;
  readonly sockets: number;
  close(): Promise<void>;
}

export async function startFakeUpstream(host = '127.0.0.1'): Promise<FakeUpstream> {
  const sockets = new Set<WebSocket>();
  const server = createServer((req, res) => {
    const url = new URL(req.url!, `http://${host}`);
    fake.requests.push({ method: req.method!, path: url.pathname + url.search, headers: req.headers });
    if (req.method === 'POST' && url.pathname === '/v2/socket') {
      req.resume();
      return res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: 'ok',
          websocket: { id: 1, url: `ws://${host}:${port}/socket`, protocol: ['service.v2'], expiration: 300 },
        }),
      );
    }
    if (req.method === 'GET' && url.pathname === '/v2/telegram') return fake.list(req, res, url);
    if (req.method === 'GET') return fake.other(req, res, url);
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server, path: '/socket' });
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', () => {});
    ws.send(JSON.stringify({ type: 'start', socketId: 1, classifications: ['telegram.earthquake'] }));
    fake.onSocket(ws);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const fake: FakeUpstream = {
    origin: `http://${host}:${port}`,
    requests: [],
    list: (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'ok', items: [], nextPooling: 'empty' })),
    other: (_req, res) => res.writeHead(404).end(),
    onSocket: () => {},
    send(message) {
      for (const ws of sockets) ws.send(JSON.stringify(message));
    },
    get sockets() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of sockets) ws.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** A list item of the upstream's `/v2/telegram` for an XML earthquake telegram at `url`. */
export function listItem(id: string, url: string, classification = 'telegram.earthquake') {
  return {
    id,
    classification,
    head: { type: 'VXSE53', author: 'JPOS', time: '2026-11-23T00:00:00Z', designation: null, test: false },
    format: 'xml',
    url,
  };
}
