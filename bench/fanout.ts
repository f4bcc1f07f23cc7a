// Fan-out latency, memory and CPU of the real-time delivery. Run through bench/fanout.sh (it raises
// the open-file limit). Needs PostgreSQL: NAMAZU_BENCH_DATABASE_URL (or NAMAZU_TEST_DATABASE_URL).
//
//   bench/fanout.sh [--workers N] [--bus postgres|redis] [--sizes 1,1000,5000,10000] [--rounds 20]
//
// Three processes (or more): this one creates accounts and sessions and ingests an EEW telegram
// (~2 KB on the wire) once per round; `namazu serve [--workers N]` delivers it; bench/fanout-clients.ts
// holds the WebSocket clients. Latency = receipt by the first / last client − the return of the
// ingest call (one clock: performance.timeOrigin + performance.now() in both processes).
//
// Reference, in the same run: a bare `ws` server in this process broadcasting the same bytes (the
// `data` message the clients received from namazu) to the same number of clients of the same client
// process with `ws.send` in a loop; latency = receipt − the start of the loop. Rounds of the two
// alternate, each taking its turn first, after one uncounted round of each.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { createAccount } from '../src/accounts/accounts.ts';
import { addContract } from '../src/accounts/contracts.ts';
import { plans } from '../src/accounts/plans.ts';
import { openBus } from '../src/bus/open.ts';
import { sessionStore, startSession } from '../src/sessions/socket-sessions.ts';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { createBenchDatabase } from './bench-database.ts';
import { forkFanoutClients } from './fanout-clients-process.ts';
import { emitResult } from './result.ts';
import { serveNamazu } from './namazu-bin.ts';
import { percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '1' },
    bus: { type: 'string', default: 'postgres' },
    sizes: { type: 'string', default: '1,1000,5000,10000' },
    rounds: { type: 'string', default: '20' },
  },
});
const workers = Number(values.workers);
const bus = values.bus as 'postgres' | 'redis';
const sizes = values.sizes!.split(',').map(Number);
const rounds = Number(values.rounds);
const adminUrl = process.env.NAMAZU_BENCH_DATABASE_URL || process.env.NAMAZU_TEST_DATABASE_URL;
const redisUrl = process.env.NAMAZU_BENCH_REDIS_URL || process.env.NAMAZU_TEST_REDIS_URL || null;
if (!adminUrl) throw new Error('set NAMAZU_BENCH_DATABASE_URL (a PostgreSQL server)');
if (bus === 'redis' && !redisUrl) throw new Error('set NAMAZU_BENCH_REDIS_URL for --bus redis');

const FIXTURES =
  process.env.NAMAZU_FIXTURES ?? fileURLToPath(new URL('../../shared/fixtures', import.meta.url));
const EEW = readFileSync(join(FIXTURES, 'jma-xml/jma-official-samples/77_01_03_240613_VXSE45.xml'));
const SECRET = 'bench-secret-0123456789abcdef0123456789';
const CONNECTIONS_PER_ACCOUNT = plans.reduce((n, p) => n + p.connectionCounts, 0);
/** How long the connections stay idle before their memory is read. */
const IDLE_MS = 30_000;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A fresh database for this run.
const {
  databaseUrl,
  db,
  pepper,
  drop: dropDatabase,
} = await createBenchDatabase(adminUrl, 'namazu_bench', SECRET);
const messageBus = await openBus({ bus, databaseUrl, redisUrl });

// The server.
const served = await serveNamazu(
  {
    NAMAZU_DATABASE_URL: databaseUrl,
    NAMAZU_BUS: bus,
    ...(redisUrl ? { NAMAZU_REDIS_URL: redisUrl } : {}),
    NAMAZU_SECRET: SECRET,
  },
  workers,
);
const server = served.child;
const wsBase = `ws://127.0.0.1:${served.ports[0]}/v2/websocket?ticket=`;

// The bare `ws` reference server.
const bare = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
await new Promise((r) => bare.once('listening', r));
const bareUrl = `ws://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
let bareConnected = 0;

/** The processes that hold WebSockets: the server, or its workers. */
function serverPids(): number[] {
  if (workers === 1) return [server.pid!];
  const children = readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, 'utf8').trim();
  return children.split(/\s+/).map(Number);
}
const rssBytes = () =>
  serverPids().reduce(
    (n, pid) => n + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024,
    0,
  );
/** CPU time of the server processes in ms (user + system; clock ticks of 10 ms). */
const cpuMs = () =>
  serverPids().reduce((n, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return n + (Number(fields[11]) + Number(fields[12])) * 10;
  }, 0);

// The clients.
const { process: clients, ask, reply } = forkFanoutClients();

// Accounts with every plan; sessions subscribe to the EEW classifications and earthquakes.
const store = sessionStore(db, pepper, 30_000);
const accountIds: number[] = [];
async function tickets(n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) {
    const needed = Math.ceil((connected + n) / CONNECTIONS_PER_ACCOUNT);
    while (accountIds.length < needed) {
      const account = await createAccount(db, {
        email: `bench${accountIds.length}@example.test`,
        password: 'bench-password',
      });
      for (const p of plans) await addContract(db, account.id, p.classification);
      accountIds.push(account.id);
    }
    const accountId = accountIds[Math.floor((connected + out.length) / CONNECTIONS_PER_ACCOUNT)]!;
    const started = await startSession(
      store,
      accountId,
      {
        classifications: ['eew.forecast', 'eew.warning', 'telegram.earthquake'],
        types: null,
        test: 'no',
        formatMode: 'raw',
        appName: 'bench',
      },
      Date.now(),
    );
    if (!started.ok) throw new Error(`cannot start a session: ${started.reason}`);
    out.push(wsBase + started.ticket);
  }
  return out;
}

const f = (ms: number) => ms.toFixed(2).padStart(8);

await sleep(1000);
const baseRss = rssBytes();
let connected = 0;
let serial = 0;
let messageBytes = 0;
console.log(`namazu fan-out: workers=${workers} bus=${bus} rounds=${rounds} message≈2 KB EEW (VXSE45)`);
console.log(
  '      N |        | first p50 | first p99 |  last p50 |  last p99 | RSS/conn KiB idle (2 s) | CPU µs/msg',
);
/** One round of namazu: an ingest, timed from its return to the first and the last client. */
async function namazuRound(
  n: number,
): Promise<{ first: number; last: number; bytes: number; payload: string }> {
  await ask({ type: 'expect', count: n });
  const raw = Buffer.concat([EEW, Buffer.from(`\n<!-- bench ${process.pid} ${++serial} -->\n`)]);
  const done = reply();
  const outcome = await ingestTelegram({ db, bus: messageBus }, raw, {
    fileName: '77_01_03_240613_VXSE45.xml',
    receivedTime: Date.now(),
  });
  const t0 = now();
  if (!outcome.ok) throw new Error(`ingest refused: ${outcome.reason}`);
  const round = (await done) as { first: number; last: number; bytes: number; payload: string };
  return { ...round, first: round.first - t0, last: round.last - t0 };
}

/** One round of the bare broadcast of the same bytes, timed from the start of its loop. */
async function bareRound(n: number, payload: Buffer): Promise<{ first: number; last: number }> {
  await ask({ type: 'expect', count: n });
  const done = reply();
  const t0 = now();
  for (const ws of bare.clients) ws.send(payload, { binary: false });
  const { first, last } = (await done) as { first: number; last: number };
  return { first: first - t0, last: last - t0 };
}

for (const n of sizes) {
  const urls = await tickets(n - connected);
  await ask({ type: 'connect', urls });
  connected = n;
  await sleep(2000);
  const rssAfterStorm = (rssBytes() - baseRss) / n / 1024;
  // Idle: the young generation grown by the storm of handshakes and session writes (up to 32 MiB)
  // is given back by V8 once the allocation rate stays low for a while (its memory reducer).
  await sleep(IDLE_MS);
  const rssPerConn = (rssBytes() - baseRss) / n / 1024;
  await ask({ type: 'connect', urls: Array<string>(n - bareConnected).fill(bareUrl), bare: true });
  bareConnected = n;
  await sleep(500);
  // A first round of each, not counted, gives the bare server the bytes namazu sends and warms both.
  const warm = await namazuRound(n);
  messageBytes = warm.bytes;
  const payload = Buffer.from(warm.payload, 'base64');
  await sleep(100);
  await bareRound(n, payload);
  await sleep(100);
  const firsts: number[] = [];
  const lasts: number[] = [];
  const bareFirsts: number[] = [];
  const bareLasts: number[] = [];
  let namazuCpuMs = 0;
  // The rounds alternate which of the two runs first, so that neither always runs in the other's wake.
  for (let r = 0; r < rounds; r++) {
    for (const which of r % 2 === 0 ? ['namazu', 'bare'] : ['bare', 'namazu']) {
      if (which === 'namazu') {
        const cpu0 = cpuMs();
        const { first, last } = await namazuRound(n);
        namazuCpuMs += cpuMs() - cpu0;
        firsts.push(first);
        lasts.push(last);
      } else {
        const { first, last } = await bareRound(n, payload);
        bareFirsts.push(first);
        bareLasts.push(last);
      }
      await sleep(100);
    }
  }
  const cpuPerMsg = (namazuCpuMs * 1000) / (rounds * n);
  console.log(
    `${String(n).padStart(7)} | namazu |${f(percentile(firsts, 50))} ms |${f(percentile(firsts, 99))} ms |${f(percentile(lasts, 50))} ms |${f(percentile(lasts, 99))} ms | ${`${rssPerConn.toFixed(1)} (${rssAfterStorm.toFixed(1)})`.padStart(23)} | ${cpuPerMsg.toFixed(1).padStart(10)}`,
  );
  console.log(
    `${String(n).padStart(7)} | bare ws|${f(percentile(bareFirsts, 50))} ms |${f(percentile(bareFirsts, 99))} ms |${f(percentile(bareLasts, 50))} ms |${f(percentile(bareLasts, 99))} ms |                       – |          –`,
  );
  emitResult('fanout', {
    workers,
    bus,
    rounds,
    clients: n,
    messageBytes,
    namazu: {
      firstP50: percentile(firsts, 50),
      firstP99: percentile(firsts, 99),
      lastP50: percentile(lasts, 50),
      lastP99: percentile(lasts, 99),
    },
    bare: {
      firstP50: percentile(bareFirsts, 50),
      firstP99: percentile(bareFirsts, 99),
      lastP50: percentile(bareLasts, 50),
      lastP99: percentile(bareLasts, 99),
    },
    rssPerConnectionKiB: rssPerConn,
    rssPerConnectionAfterStormKiB: rssAfterStorm,
    cpuMicrosecondsPerMessage: cpuPerMsg,
  });
}

const clientsExited = new Promise((r) => clients.on('exit', r));
console.log(
  `data message: ${messageBytes} bytes; load average: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
clients.send({ type: 'quit' });
await clientsExited;
bare.close();
await served.stop();
await messageBus.close();
await dropDatabase();
process.exit(0);
