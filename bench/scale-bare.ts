// One node of the reference topology of bench/scale.ts: a bare `ws` server in `workers` processes
// sharing one port (node:cluster, as `namazu serve --workers`), each subscribed to the same bus as
// Namazu. When the bench publishes `k` on the channel below, every process writes the k-th message
// of the payload file — the exact `data` frames Namazu's clients received, in the same order — to
// each of its sockets with `ws.send` in a loop.
//
//   node --import tsx bench/scale-bare.ts <port> <workers> <payload file> <bus> <database url> [redis url]
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { WebSocketServer } from 'ws';
import { openBus } from '../src/bus/open.ts';

/** bench/scale.ts publishes on the same channel. */
const BARE_CHANNEL = 'namazu_bench_bare';

const [port, workers, payloadFile, bus, databaseUrl, redisUrl] = process.argv.slice(2) as [
  string,
  string,
  string,
  'postgres' | 'redis',
  string,
  string | undefined,
];

if (cluster.isPrimary && Number(workers) > 1) {
  for (let i = 0; i < Number(workers); i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const payloads = (JSON.parse(readFileSync(payloadFile, 'utf8')) as string[]).map((p) =>
    Buffer.from(p, 'base64'),
  );
  const wss = new WebSocketServer({ host: '127.0.0.1', port: Number(port), perMessageDeflate: false });
  wss.on('connection', (ws) => ws.on('error', () => {}));
  const listening = new Promise((r) => wss.once('listening', r));
  const messageBus = await openBus({ bus, databaseUrl, redisUrl: redisUrl || null });
  await messageBus.subscribe(BARE_CHANNEL, (payload) => {
    const message = payloads[Number(payload)]!;
    for (const ws of wss.clients) ws.send(message, { binary: false });
  });
  await listening;
  console.log(JSON.stringify({ msg: 'bare listening', port: Number(port), pid: process.pid }));
  process.on('SIGTERM', () => process.exit(0));
}
