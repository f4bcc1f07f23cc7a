// Server CPU per delivered message of the hub's write path, beside `ws.send` of the same bytes to the
// very same sockets, in one process: the real endpoint (tickets from memory, as
// bench/connection-memory.ts), its hub and connections, and N clients of bench/fanout-clients.ts in
// a process of their own. Rounds alternate (each mode takes its turn first); per round: this
// process's CPU time (user + system) from the first write until the last client reported its
// arrival, divided by N, and the time to the last arrival. With no database, bus or other server
// work, what differs between the modes is only what each does per socket.
//
//   hub      hub.broadcast(record): group match, `data` message serialised and framed once, then
//            Connection.deliver per socket, `chunkSize` sockets per turn of the event loop (512 as served)
//   ws.send  for (const conn of connections) conn.ws.send(payload): the bare `ws` reference
//   raw      for (…) socket.write(frame): the floor (no check, no bound)
//
// Usage: ulimit -n "$(ulimit -Hn)"; node --import tsx bench/fanout-write-path.ts [clients] [rounds] [chunkSize]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import type { Connection } from '../src/realtime/connection.ts';
import { rawSocketOf } from '../src/realtime/raw-write.ts';
import { textFrame } from '../src/realtime/frame.ts';
import { dataMessage } from '../src/realtime/protocol.ts';
import { record, startEndpoint } from '../test/support/realtime.ts';
import { forkFanoutClients } from './fanout-clients-process.ts';
import { emitResult } from './result.ts';
import { median } from './stats.ts';

const n = Number(process.argv[2] ?? 5000);
const rounds = Number(process.argv[3] ?? 20);
/** Sockets the hub writes per turn of the event loop (512 as served: src/realtime/service.ts). */
const chunkSize = Number(process.argv[4] ?? 512);
const FIXTURES =
  process.env.NAMAZU_FIXTURES ?? fileURLToPath(new URL('../../shared/fixtures', import.meta.url));
const EEW = readFileSync(join(FIXTURES, 'jma-xml/jma-official-samples/77_01_03_240613_VXSE45.xml'));
const filter = {
  classifications: ['eew.forecast', 'eew.warning', 'telegram.earthquake'],
  types: null,
  test: 'no' as const,
  formatMode: 'raw' as const,
};

const env = await startEndpoint({ chunkSize, maxBufferedBytes: 2 * 1024 * 1024 });
const { process: clients, ask, reply } = forkFanoutClients();

const urls: string[] = [];
for (let i = 1; i <= n; i++) {
  env.gate.tickets.set(`t${i}`, { socketId: i, filter, appName: null });
  urls.push(env.url(`t${i}`));
}
await ask({ type: 'connect', urls });
if (env.hub.size !== n) throw new Error(`${env.hub.size} of ${n} connected`);
const sockets = [...env.hub.connections()].map((c) => (c as Connection).ws);

/** A telegram of its own per round: the EEW fixture gzipped, a `data` message of ~2.5 KB as served. */
const telegram = () =>
  record({
    type: 'VXSE45',
    classification: 'eew.forecast',
    body: gzipSync(Buffer.concat([EEW, Buffer.from(`<!-- ${Math.random()} -->`)])),
  });
const passing = [{ name: 'ingest', time: '2026-01-01T00:00:01.000Z' }];
const payload = dataMessage(telegram(), passing);
const frame = textFrame(payload);

const modes: Record<string, () => void> = {
  hub: () => void env.hub.broadcast(telegram(), passing),
  'ws.send': () => {
    for (const ws of sockets) ws.send(payload, { binary: false });
  },
  raw: () => {
    for (const ws of sockets) rawSocketOf(ws)!.write(frame);
  },
};
const results = Object.fromEntries(
  Object.keys(modes).map((m) => [m, { cpu: [] as number[], last: [] as number[] }]),
);

async function round(mode: string, counted: boolean) {
  await ask({ type: 'expect', count: n });
  const done = reply();
  const cpu0 = process.cpuUsage();
  const t0 = performance.timeOrigin + performance.now();
  modes[mode]!();
  const { last } = (await done) as { last: number };
  const cpu = process.cpuUsage(cpu0);
  if (counted) {
    results[mode]!.cpu.push((cpu.user + cpu.system) / n);
    results[mode]!.last.push(last - t0);
  }
  await new Promise((r) => setTimeout(r, 100));
}

for (const m of Object.keys(modes)) await round(m, false);
for (let r = 0; r < rounds; r++) {
  const order = Object.keys(modes);
  if (r % 2 === 1) order.reverse();
  for (const m of order) await round(m, true);
}

console.log(
  `${n} sockets, ${rounds} rounds, hub chunk ${chunkSize}, data message ${payload.length} bytes (medians)`,
);
for (const [m, { cpu, last }] of Object.entries(results)) {
  console.log(
    `${m.padEnd(8)} CPU ${median(cpu).toFixed(2).padStart(6)} µs per delivery · last ${median(last).toFixed(1).padStart(6)} ms`,
  );
}
emitResult('fanout-write-path', {
  clients: n,
  rounds,
  chunkSize,
  messageBytes: payload.length,
  ...Object.fromEntries(
    Object.entries(results).map(([m, { cpu, last }]) => [
      m,
      { cpuMicroseconds: median(cpu), lastMs: median(last) },
    ]),
  ),
});

const exited = new Promise((r) => clients.on('exit', r));
clients.send({ type: 'quit' });
await exited;
await env.stop();
process.exit(0);
