// The receiver of bench/webhooks.ts, in a process of its own (so that its work does not count as
// the server's): answers every POST 204 at once and records when each arrived (one clock with the
// parent: performance.timeOrigin + performance.now()). The parent asks for the arrivals of a round.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const now = () => performance.timeOrigin + performance.now();
let arrivals: number[] = [];
const server = createServer((req, res) => {
  arrivals.push(now());
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('message', (m: { take?: number }) => {
  if (m.take === undefined) return;
  const wanted = m.take;
  const poll = setInterval(() => {
    if (arrivals.length < wanted) return;
    clearInterval(poll);
    process.send!({ arrivals: arrivals.slice(0, wanted) });
    arrivals = arrivals.slice(wanted);
  }, 5);
});
process.on('disconnect', () => process.exit(0));
