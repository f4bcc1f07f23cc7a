// What admitting one connection costs, on one process (docs/operations.md "Sizing", the `a` of the
// cost model): N clients of this process open a socket each, C at a time, from distinct source
// addresses, by each way in turn — the public socket (`/v2/public/websocket`, anonymous), the ticket
// flow (`POST /v2/socket` with an API key, then `/v2/websocket?ticket=`), and the reference, a bare
// `ws` server (bench/scale-bare.ts, one process) — rounds alternated. Per connection: the server
// process's CPU (every thread), PostgreSQL's backends' CPU, and the connections admitted per second.
//
//   NAMAZU_BENCH_DATABASE_URL=postgres://… node --import tsx bench/connect-cost.ts [--clients 5000]
//     [--concurrency 100] [--rounds 3] [--kinds public,ticket,bare]
//
// Run it with the open-file limit raised (`ulimit -n "$(ulimit -Hn)"`).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { createBenchAccount } from './bench-account.ts';
import { createBenchDatabase } from './bench-database.ts';
import { freePort } from './free-port.ts';
import { cleanEnv, serveNamazu } from './namazu-bin.ts';
import { commandCpuSeconds, cpuSeconds } from './proc.ts';
import { emitResult } from './result.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    kinds: { type: 'string', default: 'public,ticket,bare' },
  },
});
const clients = Number(values.clients);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
type Kind = 'public' | 'ticket' | 'bare';
const kinds = values.kinds.split(',') as Kind[];

const adminUrl = process.env.NAMAZU_BENCH_DATABASE_URL || process.env.NAMAZU_TEST_DATABASE_URL;
if (!adminUrl) throw new Error('set NAMAZU_BENCH_DATABASE_URL (a PostgreSQL server)');

const SECRET = 'bench-secret-0123456789abcdef0123456789';
const CLASSIFICATIONS = ['eew.forecast', 'eew.warning'];
/** The ticket clients' accounts, as bench/scale.ts has them: 10, with room for every client. */
const ACCOUNTS = 10;

const bench = await createBenchDatabase(adminUrl, 'namazu_bench_connect', SECRET);
const authorizations: string[] = [];
for (let a = 0; a < ACCOUNTS; a++) {
  const scopes = ['socket.start', 'eew.get.forecast', 'eew.get.warning'];
  const account = await createBenchAccount(
    bench.db,
    bench.pepper,
    `connect${a}@example.test`,
    scopes,
    clients,
  );
  authorizations.push(account.authorization);
}
const scratch = mkdtempSync(join(tmpdir(), 'namazu-connect-'));
const payloads = join(scratch, 'payloads.json');
writeFileSync(payloads, '[]');

/** A server of a round: its process and the port it listens on. */
interface Server {
  child: ChildProcess;
  port: number;
}

async function start(kind: Kind): Promise<Server> {
  if (kind !== 'bare') {
    const { child, ports } = await serveNamazu({
      NAMAZU_DATABASE_URL: bench.databaseUrl,
      NAMAZU_SECRET: SECRET,
      NAMAZU_PUBLIC_CLASSIFICATIONS: CLASSIFICATIONS.join(','),
      NAMAZU_PUBLIC_MAX_CONNECTIONS: String(clients),
      NAMAZU_PUBLIC_MAX_PER_ADDRESS: String(clients),
      NAMAZU_PUBLIC_CONNECTS_PER_MINUTE: String(clients),
    });
    return { child, port: ports[0]! };
  }
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/scale-bare.ts', String(port), '1', payloads, 'postgres', bench.databaseUrl],
    { env: cleanEnv({}), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  while (!log.includes('"bare listening"')) {
    if (child.exitCode !== null) throw new Error(`the bare server exited:\n${log}`);
    await sleep(50);
  }
  return { child, port };
}

/** Client i's source address: 127.0.x.y, a new one for every client of a round. */
const addressOf = (i: number) =>
  `127.${1 + Math.floor(i / 40_000)}.${1 + (Math.floor(i / 200) % 200)}.${1 + (i % 200)}`;

function ticketFor(port: number, agent: Agent, i: number): Promise<string> {
  const body = JSON.stringify({ classifications: CLASSIFICATIONS, appName: 'connect-cost' });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v2/socket',
        agent,
        headers: {
          authorization: authorizations[i % ACCOUNTS]!,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve((JSON.parse(text) as { ticket: string }).ticket)
            : reject(new Error(`POST /v2/socket: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens every client's socket; resolves with the sockets (Namazu's once `start` came). */
async function connectAll(kind: Kind, port: number): Promise<WebSocket[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const sockets: WebSocket[] = [];
  let next = 0;
  const lane = async () => {
    while (next < clients) {
      const i = next++;
      const url =
        kind === 'bare'
          ? `ws://127.0.0.1:${port}/`
          : kind === 'public'
            ? `ws://127.0.0.1:${port}/v2/public/websocket?classifications=${CLASSIFICATIONS.join(',')}`
            : `ws://127.0.0.1:${port}/v2/websocket?ticket=${encodeURIComponent(await ticketFor(port, agent, i))}`;
      const ws = new WebSocket(url, kind === 'bare' ? [] : 'service.v2', {
        perMessageDeflate: false,
        localAddress: addressOf(i),
      });
      await new Promise<void>((resolve, reject) => {
        ws.once(kind === 'bare' ? 'open' : 'message', () => resolve());
        ws.once('error', reject);
      });
      sockets.push(ws);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  agent.destroy();
  return sockets;
}

interface Figures {
  serverMs: number;
  postgresMs: number;
  perSecond: number;
}

async function round(kind: Kind): Promise<Figures> {
  const server = await start(kind);
  const { port } = server;
  await sleep(1000);
  const server0 = cpuSeconds(server.child.pid!);
  const postgres0 = commandCpuSeconds('postgres');
  const t0 = performance.now();
  const sockets = await connectAll(kind, port);
  const seconds = (performance.now() - t0) / 1000;
  const figures = {
    serverMs: ((cpuSeconds(server.child.pid!) - server0) * 1000) / clients,
    postgresMs: ((commandCpuSeconds('postgres') - postgres0) * 1000) / clients,
    perSecond: clients / seconds,
  };
  for (const ws of sockets) ws.terminate();
  server.child.kill('SIGKILL');
  await once(server.child, 'exit');
  return figures;
}

const results = new Map<Kind, Figures[]>(kinds.map((k) => [k, []]));
for (let r = 0; r < rounds; r++) for (const kind of kinds) results.get(kind)!.push(await round(kind));
await bench.drop();
rmSync(scratch, { recursive: true, force: true });

const show = (xs: number[], digits: number) => xs.map((x) => x.toFixed(digits)).join(' · ');
console.log(
  `${clients} connections, ${concurrency} at once, ${rounds} rounds each (medians; rounds in brackets)`,
);
for (const [kind, figures] of results) {
  const server = figures.map((f) => f.serverMs);
  const postgres = figures.map((f) => f.postgresMs);
  const rate = figures.map((f) => f.perSecond);
  console.log(
    `  ${kind.padEnd(6)} server CPU ${median(server).toFixed(3)} ms (${show(server, 3)}) · PostgreSQL ${median(postgres).toFixed(3)} ms (${show(postgres, 3)}) · ${Math.round(median(rate))}/s (${show(rate, 0)})`,
  );
}
emitResult('connect-cost', {
  clients,
  concurrency,
  ...Object.fromEntries(
    [...results].map(([kind, figures]) => [
      kind,
      {
        serverCpuMsPerConnection: median(figures.map((f) => f.serverMs)),
        postgresCpuMsPerConnection: median(figures.map((f) => f.postgresMs)),
        connectsPerSecond: median(figures.map((f) => f.perSecond)),
      },
    ]),
  ),
});
