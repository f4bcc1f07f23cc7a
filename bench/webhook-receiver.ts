// The receivers of bench/webhooks.ts and bench/webhook-outage.ts, in a process of their own (so that
// their work does not count as the server's): one port on each of the loopback addresses 127.0.0.1 …
// 127.0.0.<hosts> (each a host of its own to the sender, as receivers on different machines are),
// answering every POST 204 at once and recording when each arrived (one clock with the parent:
// performance.timeOrigin + performance.now()); the ones whose path starts /stalled never answer. The
// parent asks for the arrivals of a round, by path prefix.
//
// For bench/webhook-outage.ts: a POST to /signed/<i> is verified with the `standardwebhooks` package
// against secret i (the parent sends the secrets), answered 204 (401 if the signature fails), and
// recorded with its `webhook-id`; the parent collects those records. `down` stops listening and
// destroys every open connection (senders get connection refused); `up` listens again on the same
// addresses and port.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A POST to /signed/<i>, as the parent collects it. */
export interface SignedArrival {
  at: number;
  /** Its `webhook-id` header ('' when absent). */
  id: string;
  /** The i of its path: the subscription whose secret verified it. */
  index: number;
  verified: boolean;
}

/** What the parent may ask. */
export type ReceiverCommand =
  { take: number; kind?: string } | { secrets: string[] } | { collect: true } | { down: true } | { up: true };

const hosts = Number(process.argv[2] ?? '1');
const now = () => performance.timeOrigin + performance.now();
const arrivals = new Map<string, number[]>();
const stalled: ServerResponse[] = [];
let verifiers: Webhook[] = [];
let signed: SignedArrival[] = [];

function receiveSigned(req: IncomingMessage, res: ServerResponse, at: number, index: number): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let verified = false;
    try {
      const headers = req.headers as Record<string, string>;
      verifiers[index]!.verify(Buffer.concat(chunks), headers, { jsonParse: false });
      verified = true;
    } catch {
      // An unknown index or a bad signature: counted by the parent.
    }
    signed.push({ at, id: String(req.headers['webhook-id'] ?? ''), index, verified });
    res.writeHead(verified ? 204 : 401).end();
  });
}

const handle = (req: IncomingMessage, res: ServerResponse) => {
  const at = now();
  const [, kind, index] = (req.url ?? '/').split('/');
  if (kind === 'signed') return receiveSigned(req, res, at, Number(index));
  let list = arrivals.get(kind!);
  if (!list) arrivals.set(kind!, (list = []));
  list.push(at);
  req.resume();
  if (kind === 'stalled') stalled.push(res);
  else req.on('end', () => res.writeHead(204).end());
};
const addressOf = (k: number) => `127.0.0.${k}`;
const servers: Server[] = [];
for (let k = 1; k <= hosts; k++) {
  const server = createServer(handle);
  server.keepAliveTimeout = 60_000;
  servers.push(server);
}
/** Listens on every address, on `port` (0: the port the first address is given). */
async function listen(port: number): Promise<number> {
  for (const [k, server] of servers.entries()) {
    server.listen(port, addressOf(k + 1));
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  }
  return port;
}
const port = await listen(0);
process.send!({ port });

/** Down: no listener, and every connection (idle or mid-request) destroyed. */
async function down(): Promise<void> {
  await Promise.all(
    servers.map((server) => {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      return closed;
    }),
  );
}

function take(wanted: number, kind: string): void {
  const poll = setInterval(() => {
    const list = arrivals.get(kind) ?? [];
    if (list.length < wanted) return;
    clearInterval(poll);
    process.send!({ arrivals: list.slice(0, wanted) });
    arrivals.set(kind, list.slice(wanted));
  }, 5);
}

process.on('message', (m: ReceiverCommand) => {
  if ('take' in m) take(m.take, m.kind ?? 'hook');
  else if ('secrets' in m) {
    verifiers = m.secrets.map((secret) => new Webhook(secret));
    process.send!({ secrets: verifiers.length });
  } else if ('collect' in m) {
    process.send!({ signed });
    signed = [];
  } else if ('down' in m) void down().then(() => process.send!({ down: now() }));
  else if ('up' in m) void listen(port).then(() => process.send!({ up: now() }));
});
process.on('disconnect', () => process.exit(0));
