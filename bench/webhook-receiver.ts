// The receivers of bench/webhooks.ts, in a process of their own (so that their work does not count
// as the server's): one port on each of the loopback addresses 127.0.0.1 … 127.0.0.<hosts> (each a
// host of its own to the sender, as receivers on different machines are), answering every POST 204
// at once and recording when each arrived (one clock with the parent: performance.timeOrigin +
// performance.now()); the ones whose path starts /stalled never answer. The parent asks for the
// arrivals of a round, by path prefix.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const hosts = Number(process.argv[2] ?? '1');
const now = () => performance.timeOrigin + performance.now();
const arrivals = new Map<string, number[]>();
const stalled: ServerResponse[] = [];
const handle = (req: IncomingMessage, res: ServerResponse) => {
  const at = now();
  const kind = (req.url ?? '/').split('/')[1]!;
  let list = arrivals.get(kind);
  if (!list) arrivals.set(kind, (list = []));
  list.push(at);
  req.resume();
  if (kind === 'stalled') stalled.push(res);
  else req.on('end', () => res.writeHead(204).end());
};
const servers = [createServer(handle)];
servers[0]!.listen(0, '127.0.0.1');
await once(servers[0]!, 'listening');
const port = (servers[0]!.address() as AddressInfo).port;
for (let k = 2; k <= hosts; k++) {
  const server = createServer(handle);
  server.listen(port, `127.0.0.${k}`);
  await once(server, 'listening');
  servers.push(server);
}
for (const server of servers) server.keepAliveTimeout = 60_000;
process.send!({ port });

process.on('message', (m: { take?: number; kind?: string }) => {
  if (m.take === undefined) return;
  const wanted = m.take;
  const kind = m.kind ?? 'hook';
  const poll = setInterval(() => {
    const list = arrivals.get(kind) ?? [];
    if (list.length < wanted) return;
    clearInterval(poll);
    process.send!({ arrivals: list.slice(0, wanted) });
    arrivals.set(kind, list.slice(wanted));
  }, 5);
});
process.on('disconnect', () => process.exit(0));
