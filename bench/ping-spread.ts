// What the heartbeat costs live delivery. Run through bench/ping-spread.sh (it raises the open-file
// limit). Needs PostgreSQL: NAMAZU_BENCH_DATABASE_URL (or NAMAZU_TEST_DATABASE_URL).
//
//   bench/ping-spread.sh [--clients 12000] [--ping-ms 5000] [--seconds 20] [--runs 2]
//
// One `namazu serve` process holds `clients` anonymous sockets of the public stream
// (bench/ping-spread-clients.ts, in a process of its own, answers every ping with its pong) while an
// EEW is ingested every 200–300 ms, whether or not the last one has reached everyone, for `seconds`.
// Latency = receipt by the last client − the return of the ingest call. Pinged: NAMAZU_PING_INTERVAL_MS = `ping-ms`
// (docs/realtime.md "Heartbeats": each tick's pings spread over half the interval). Reference, in the
// same run: the same with pings every hour (none within the run). Runs alternate, the pinged first.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { openBus } from '../src/bus/open.ts';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { createBenchDatabase } from './bench-database.ts';
import { serveNamazu } from './namazu-bin.ts';
import { emitResult } from './result.ts';
import { percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '12000' },
    'ping-ms': { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '20' },
    runs: { type: 'string', default: '2' },
  },
});
const clientCount = Number(values.clients);
const pingMs = Number(values['ping-ms']);
const seconds = Number(values.seconds);
const runs = Number(values.runs);
const adminUrl = process.env.NAMAZU_BENCH_DATABASE_URL || process.env.NAMAZU_TEST_DATABASE_URL;
if (!adminUrl) throw new Error('set NAMAZU_BENCH_DATABASE_URL (a PostgreSQL server)');

const FIXTURES =
  process.env.NAMAZU_FIXTURES ?? fileURLToPath(new URL('../../shared/fixtures', import.meta.url));
const EEW = readFileSync(join(FIXTURES, 'jma-xml/jma-official-samples/77_01_03_240613_VXSE45.xml'));
const SECRET = 'bench-secret-0123456789abcdef0123456789';
const CLASSIFICATIONS = 'eew.forecast,eew.warning';
const CLIENTS = fileURLToPath(new URL('./ping-spread-clients.ts', import.meta.url));
const now = () => performance.timeOrigin + performance.now();

const { databaseUrl, db, drop } = await createBenchDatabase(adminUrl, 'namazu_bench_pings', SECRET);
const bus = await openBus({ bus: 'postgres', databaseUrl, redisUrl: null });
let serial = 0;

/** One run: a node pinging every `interval` ms, its clients, EEWs for `seconds`; last-client latencies. */
async function run(interval: number): Promise<{ latencies: number[]; pongs: number }> {
  const served = await serveNamazu({
    NAMAZU_DATABASE_URL: databaseUrl,
    NAMAZU_BUS: 'postgres',
    NAMAZU_SECRET: SECRET,
    NAMAZU_PING_INTERVAL_MS: String(interval),
    NAMAZU_PUBLIC_CLASSIFICATIONS: CLASSIFICATIONS,
    // Every client comes from 127.0.0.1: the public socket's caps above them.
    NAMAZU_PUBLIC_MAX_CONNECTIONS: String(clientCount + 1000),
    NAMAZU_PUBLIC_MAX_PER_ADDRESS: String(clientCount + 1000),
    NAMAZU_PUBLIC_CONNECTS_PER_MINUTE: '1000000',
  });
  const clients = fork(CLIENTS, [String(served.ports[0]), String(clientCount)], {
    execArgv: ['--import', 'tsx'],
  });
  await once(clients, 'message');
  // The connections' first pings are under way from the first tick on.
  await sleep(Math.min(interval, 3000));
  const ingestedAt = new Map<string, number>();
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const raw = Buffer.concat([EEW, Buffer.from(`\n<!-- pings ${process.pid} ${++serial} -->\n`)]);
    const outcome = await ingestTelegram({ db, bus }, raw, {
      fileName: '77_01_03_240613_VXSE45.xml',
      receivedTime: Date.now(),
    });
    if (!outcome.ok) throw new Error(`ingest refused: ${outcome.reason}`);
    ingestedAt.set(outcome.stored.id, now());
    await sleep(200 + Math.random() * 100);
  }
  await sleep(3000);
  clients.send({ type: 'report' });
  const [report] = (await once(clients, 'message')) as [
    { lastAt: [string, number][]; received: [string, number][]; pongs: number },
  ];
  const lastAt = new Map(report.lastAt);
  const received = new Map(report.received);
  const short = [...ingestedAt.keys()].filter((id) => received.get(id) !== clientCount);
  if (short.length > 0) throw new Error(`${short.length} telegrams did not reach every client`);
  clients.kill();
  await served.stop();
  const latencies = [...ingestedAt].map(([id, at]) => lastAt.get(id)! - at);
  return { latencies: latencies.sort((a, b) => a - b), pongs: report.pongs };
}

const summary = ({ latencies: l, pongs }: { latencies: number[]; pongs: number }) => ({
  telegrams: l.length,
  pongs,
  p50: percentile(l, 50),
  p99: percentile(l, 99),
  max: l.at(-1)!,
});
const ms = (x: number) => `${x.toFixed(1)} ms`.padStart(9);
console.log(
  `${clientCount} public sockets on one process, an EEW every 200–300 ms for ${seconds} s; last client:`,
);
for (let r = 0; r < runs; r++) {
  const pinged = summary(await run(pingMs));
  const reference = summary(await run(3_600_000));
  console.log(
    `  run ${r + 1}: pinged every ${pingMs / 1000} s  p50 ${ms(pinged.p50)}  p99 ${ms(pinged.p99)}  max ${ms(pinged.max)} (${pinged.telegrams} telegrams, ${pinged.pongs} pongs)`,
  );
  console.log(
    `         not pinged          p50 ${ms(reference.p50)}  p99 ${ms(reference.p99)}  max ${ms(reference.max)} (${reference.telegrams})   p99 ${(pinged.p99 / reference.p99).toFixed(2)}×`,
  );
  emitResult('ping-spread', {
    clients: clientCount,
    pingMs,
    run: r,
    pinged,
    reference,
    p99Ratio: pinged.p99 / reference.p99,
    load: loadavg()[0],
  });
}
await bus.close();
await drop();
process.exit(0);
