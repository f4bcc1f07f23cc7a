/** A webhook receiver on loopback for tests: records every request; its answer is set per test. */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** How the receiver answers: with a status (and headers), or by its own handler. */
export type Behaviour =
  | { status: number; headers?: Record<string, string> }
  | ((req: IncomingMessage, res: ServerResponse) => void);

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The ones answered 2xx. */
  accepted: Received[];
  answer(b: Behaviour): void;
  close(): Promise<void>;
}

export async function startReceiver(initial: Behaviour = { status: 200 }): Promise<Receiver> {
  let behaviour = initial;
  const received: Received[] = [];
  const accepted: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      received.push(entry);
      if (typeof behaviour === 'function') return behaviour(req, res);
      if (behaviour.status >= 200 && behaviour.status < 300) accepted.push(entry);
      res.writeHead(behaviour.status, behaviour.headers ?? {}).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    accepted,
    answer(b) {
      behaviour = b;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}
