// The stream at scale: N clients spread over 4 Namazu nodes, beside the same topology of bare `ws`
// processes, in one run (docs/operations.md "Sizing"). Run through bench/scale.sh (it raises the
// open-file limit). Needs PostgreSQL: NAMAZU_BENCH_DATABASE_URL (or NAMAZU_TEST_DATABASE_URL); with
// --bus redis, NAMAZU_BENCH_REDIS_URL (or NAMAZU_TEST_REDIS_URL).
//
//   bench/scale.sh [--sizes 100000] [--runs 1] [--bus postgres|redis] [--nodes 4] [--no-kill]
//                  [--ticket-every 10] [--profile DIR]
//
// Topology (each box a process; every socket over loopback):
//
//   this process ── ingest (PostgreSQL, commit + NOTIFY) ──► bus ──► node k: `namazu serve --workers W`
//                                                                      │ W workers share one port
//   client process p (bench/scale-clients.ts, ≤ 12,500 sockets, bound to 127.0.(1+p).2…201)
//       client i on node (p + i) mod 4: one in 10 (--ticket-every) POST /v2/socket, then the
//       WebSocket with that ticket; the others the public socket (/v2/public/websocket, anonymous,
//       NAMAZU_PUBLIC_CLASSIFICATIONS = the EEW classifications); every client answers pings
//
//   reference: the same clients on 4 bare nodes (bench/scale-bare.ts, W `ws` processes each),
//   subscribed to the same bus; this process publishes k, each writes the k-th `data` frame Namazu's
//   clients received, the same bytes, to all its sockets.
//
// W = ceil(clients per node / 15,000): a process may hold 20,000 open files here. Ticket clients use
// accounts of 1,000 connections each, one API key each, and an operator's limit of 2,000 (`namazu
// account limit`): after a node dies its sessions count until it has been unseen for 5 s.
//
// Each run, each size: connect everyone (the storm: time, connections per second, server CPU each,
// after a warm-up of a tenth that connects and leaves); server RSS
// per connection after the storm; 10 EEWs one at a time, then a burst of 10 EEWs 50 ms apart;
// ingest → first / median / last client per telegram; lost and duplicated per client; server and
// client CPU per delivered message. Then (unless --no-kill) a second burst, during which one node is
// killed with SIGKILL: its clients reconnect to another node (at random, as behind a load balancer)
// after a random delay up to 2 s, with `after` = their last telegram id; every client must end with
// every telegram once, and a last EEW after the burst reaches everyone. Then the same without the
// kill on the bare topology.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openBus } from '../src/bus/open.ts';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { BIN, cleanEnv } from './namazu-bin.ts';
import { childrenOf, cpuSeconds, rss } from './proc.ts';
import { createBenchAccount } from './bench-account.ts';
import { createBenchDatabase } from './bench-database.ts';
import { freePort } from './free-port.ts';
import { emitResult } from './result.ts';
import { startingNode } from './scale-placement.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '1' },
    bus: { type: 'string', default: 'postgres' },
    nodes: { type: 'string', default: '4' },
    'no-kill': { type: 'boolean', default: false },
    'ticket-every': { type: 'string', default: '10' },
    /** Writes a CPU profile of each Namazu node into this directory (nodes then stop with SIGTERM). */
    profile: { type: 'string' },
  },
});
const sizes = values.sizes!.split(',').map(Number);
const runs = Number(values.runs);
const bus = values.bus as 'postgres' | 'redis';
const nodeCount = Number(values.nodes);
const kill = !values['no-kill'];
const adminUrl = process.env.NAMAZU_BENCH_DATABASE_URL || process.env.NAMAZU_TEST_DATABASE_URL;
const redisUrl = process.env.NAMAZU_BENCH_REDIS_URL || process.env.NAMAZU_TEST_REDIS_URL || null;
if (!adminUrl) throw new Error('set NAMAZU_BENCH_DATABASE_URL (a PostgreSQL server)');
if (bus === 'redis' && !redisUrl) throw new Error('set NAMAZU_BENCH_REDIS_URL for --bus redis');

const PER_WORKER = 15_000;
const PER_CLIENT_PROCESS = 12_500;
const ACCOUNT_SIZE = 1000;
/** One client in TICKET_EVERY takes the ticket flow; the others are anonymous clients of the public socket. */
const TICKET_EVERY = Number(values['ticket-every']);
const SPACED = 10;
const BURST = 10;
const BURST_GAP_MS = 50;
const JITTER_MS = 2000;
/** Source addresses per client process (127.0.<process>.<2…>): 60 clients per address at 12,000. */
const ADDRESSES_PER_PROCESS = 200;
const CLASSIFICATIONS = ['eew.forecast', 'eew.warning'];
const BARE_CHANNEL = 'namazu_bench_bare'; // bench/scale-bare.ts listens there
const CLIENTS = fileURLToPath(new URL('./scale-clients.ts', import.meta.url));
const BARE = fileURLToPath(new URL('./scale-bare.ts', import.meta.url));
const FIXTURES =
  process.env.NAMAZU_FIXTURES ?? fileURLToPath(new URL('../../shared/fixtures', import.meta.url));
const EEW = readFileSync(join(FIXTURES, 'jma-xml/jma-official-samples/77_01_03_240613_VXSE45.xml'));
const SECRET = 'bench-secret-0123456789abcdef0123456789';
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A fresh database for this run; the bench's own bus (ingest, and telling the bare nodes).
const {
  databaseUrl,
  db,
  pepper,
  drop: dropDatabase,
} = await createBenchDatabase(adminUrl, 'namazu_bench_scale', SECRET);
const messageBus = await openBus({ bus, databaseUrl, redisUrl });
const scratch = mkdtempSync(join(tmpdir(), 'namazu-scale-'));

/** Accounts of ACCOUNT_SIZE connections with an API key each: Basic authorizations. */
const authorizations: string[] = [];
async function accountsFor(clients: number): Promise<void> {
  while (authorizations.length * ACCOUNT_SIZE < Math.ceil(clients / TICKET_EVERY)) {
    const scopes = ['socket.start', 'socket.close', 'eew.get.forecast', 'eew.get.warning'];
    const email = `scale${authorizations.length}@example.test`;
    // Headroom for reconnects: the sessions of a killed node count until it has been unseen for 5 s.
    const account = await createBenchAccount(db, pepper, email, scopes, 2 * ACCOUNT_SIZE);
    authorizations.push(account.authorization);
  }
}

/** A node (namazu or bare): its own process group, so that SIGKILL takes all its processes. */
interface Node {
  port: number;
  process: ChildProcess;
  pids: number[];
}

/** Every node started, killed if this process ends early, and the client processes. */
const started: ChildProcess[] = [];
const clientProcesses: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of clientProcesses) child.kill('SIGKILL');
  for (const child of started) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

async function startNode(
  command: string[],
  env: NodeJS.ProcessEnv,
  workers: number,
  ready: RegExp,
): Promise<Node> {
  const child = spawn(process.execPath, command, {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(child);
  let listening = 0;
  let tail = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (tail + d.toString()).split('\n');
    tail = lines.pop()!;
    listening += lines.filter((l) => ready.test(l)).length;
  });
  const deadline = Date.now() + 60_000;
  while (listening < workers) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`a node did not start: ${command.join(' ')}`);
    await sleep(50);
  }
  return { port: 0, process: child, pids: [child.pid!, ...(workers > 1 ? childrenOf(child.pid!) : [])] };
}

async function startNamazu(workers: number): Promise<Node> {
  const port = await freePort();
  const env = cleanEnv({
    NAMAZU_DATABASE_URL: databaseUrl,
    NAMAZU_BUS: bus,
    ...(redisUrl ? { NAMAZU_REDIS_URL: redisUrl } : {}),
    NAMAZU_SECRET: SECRET,
    NAMAZU_DEMO: '0',
    NAMAZU_LOG_LEVEL: 'info',
    NAMAZU_DB_POOL_SIZE: '6',
    // The public socket, its caps above the bench's clients (each client process has one address).
    NAMAZU_PUBLIC_CLASSIFICATIONS: CLASSIFICATIONS.join(','),
    // A worker takes its share of a dead node's clients too: up to the open-file limit.
    NAMAZU_PUBLIC_MAX_CONNECTIONS: '19000',
    NAMAZU_PUBLIC_MAX_PER_ADDRESS: '1000000',
    NAMAZU_PUBLIC_CONNECTS_PER_MINUTE: '1000000',
  });
  const profile = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [];
  const args = [
    ...profile,
    BIN,
    'serve',
    '--workers',
    String(workers),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
  ];
  return { ...(await startNode(args, env, workers, /"namazu listening"/)), port };
}

async function startBare(workers: number, payloadFile: string): Promise<Node> {
  const port = await freePort();
  const args = [
    '--import',
    'tsx',
    BARE,
    String(port),
    String(workers),
    payloadFile,
    bus,
    databaseUrl,
    redisUrl ?? '',
  ];
  return { ...(await startNode(args, process.env, workers, /"bare listening"/)), port };
}

async function stopNodes(nodes: Node[]): Promise<void> {
  for (const n of nodes) {
    try {
      process.kill(-n.process.pid!, values.profile ? 'SIGTERM' : 'SIGKILL');
    } catch {
      // already gone (the killed node)
    }
  }
  await sleep(values.profile ? 8000 : 500);
}

const serverRss = (nodes: Node[]) => nodes.flatMap((n) => n.pids).reduce((s, pid) => s + rss(pid), 0);
const cpuOf = (pids: number[]) => pids.reduce((s, pid) => s + cpuSeconds(pid), 0);

/** A client process and its replies, by type. */
class Clients {
  readonly child: ChildProcess;
  private readonly waiting = new Map<string, ((m: Record<string, unknown>) => void)[]>();
  constructor() {
    this.child = fork(CLIENTS, [], { execArgv: ['--import', 'tsx'] });
    this.child.on('message', (m: Record<string, unknown>) => {
      if (m.type === 'failed') console.error('client process failed:', m.error);
      const w = this.waiting.get(String(m.type))?.shift();
      w?.(m);
    });
  }
  ask<T = Record<string, unknown>>(command: object, answer: string): Promise<T> {
    return new Promise((resolve) => {
      const list = this.waiting.get(answer) ?? [];
      list.push(resolve as (m: Record<string, unknown>) => void);
      this.waiting.set(answer, list);
      this.child.send(command);
    });
  }
}

interface TelegramReport {
  id: string;
  payload: string;
  once: number;
  lost: number;
  duplicated: number;
  received: number;
  quantiles: number[];
}
interface Report {
  clients: number;
  open: number;
  telegrams: TelegramReport[];
  reconnects: number;
  stillDropped: number;
  /** p50, p99, largest (ms): drop → first telegram after it; drop → the new socket; that → the telegram. */
  recoveries: number[];
  rejoins: number[];
  firstAfterRejoin: number[];
  /** The same as `recoveries`, of the clients that come back through the ticket flow only. */
  ticketRecoveries: number[];
  recovered: number;
  /** Of those recovered, the ones whose first attempt to come back failed. */
  recoveredAfterRetry: number;
  failedAttempts: number;
  errors: Record<string, number>;
}

/** How many clients connectAll puts on node `node` (process p starts its clients from offset p). */
function clientsOfNode(node: number, nodes: number, n: number, processes: number): number {
  const per = Math.ceil(n / processes);
  let count = 0;
  for (let p = 0; p < processes; p++)
    for (let i = 0; i < Math.min(per, n - p * per); i++) if (startingNode(p, i, nodes) === node) count++;
  return count;
}

/** Spreads `n` clients over the client processes: process p binds 127.0.(1+p).(2…201). */
async function connectAll(procs: Clients[], mode: 'namazu' | 'bare', nodes: Node[], n: number) {
  const per = Math.ceil(n / procs.length);
  const started = now();
  const replies = await Promise.all(
    procs.map((c, p) =>
      c.ask<{ seconds: number; failedAttempts: number; ticketMs: number; openMs: number }>(
        {
          type: 'connect',
          mode,
          ticketEvery: TICKET_EVERY,
          nodes: nodes.map((node) => `127.0.0.1:${node.port}`),
          offset: p,
          count: Math.min(per, n - p * per),
          start: p * per,
          localAddresses: Array.from({ length: ADDRESSES_PER_PROCESS }, (_, a) => `127.0.${1 + p}.${2 + a}`),
          authorizations,
          classifications: CLASSIFICATIONS,
          concurrency: 256,
          jitterMs: JITTER_MS,
        },
        'connected',
      ),
    ),
  );
  return {
    seconds: (now() - started) / 1000,
    failedAttempts: replies.reduce((s, r) => s + r.failedAttempts, 0),
    /** Mean time per client to get its ticket, and from the WebSocket request to `start`. */
    ticketMs: median(replies.map((r) => r.ticketMs)),
    openMs: median(replies.map((r) => r.openMs)),
  };
}

/**
 * A tenth of the clients (at most 2,000) connect and leave before the baseline of memory is taken:
 * what a node allocates once (compiled code, pools, first buffers) is not counted per connection.
 */
async function warmUp(procs: Clients[], mode: 'namazu' | 'bare', nodes: Node[], n: number): Promise<void> {
  await connectAll(procs, mode, nodes, Math.min(2000, Math.ceil(n / 10)));
  await Promise.all(procs.map((c) => c.ask({ type: 'close' }, 'closed')));
  await sleep(2000);
}

interface Progress {
  /** First receipts of telegrams since the last reset. */
  received: number;
  /** Dropped clients whose socket is not back yet. */
  away: number;
  /** Drops since the last reset. */
  reconnects: number;
}
const progressOf = async (procs: Clients[]) =>
  (await Promise.all(procs.map((c) => c.ask<Progress>({ type: 'progress' }, 'progress')))).reduce(
    (s, r) => ({
      received: s.received + r.received,
      away: s.away + r.away,
      reconnects: s.reconnects + r.reconnects,
    }),
    { received: 0, away: 0, reconnects: 0 },
  );
const sumProgress = async (procs: Clients[]) => (await progressOf(procs)).received;

/**
 * Waits until `dropped` clients have seen their socket drop (client processes that lag behind see it
 * late) and every one has its socket back, or `timeoutMs` passed.
 */
async function everyoneBack(procs: Clients[], dropped: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const p = await progressOf(procs);
    if (p.reconnects >= dropped && p.away === 0) return true;
    await sleep(100);
  }
  return false;
}

/** Waits until the clients hold `expected` first receipts, or `timeoutMs` passed. */
async function delivered(procs: Clients[], expected: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await sumProgress(procs)) >= expected) return true;
    await sleep(20);
  }
  return false;
}

/** Per telegram: first / median / last client (ms after `sentAt`), merged over the client processes. */
function merge(reports: Report[], sentAt: Map<string, number>) {
  const ids = [...sentAt.keys()];
  return ids.map((id) => {
    const parts = reports.map((r) => r.telegrams.find((t) => t.id === id)).filter((t) => t !== undefined);
    const received = parts.reduce((s, t) => s + t.received, 0);
    const points = parts
      .flatMap((t) => t.quantiles.map((q) => ({ q, w: t.received / t.quantiles.length })))
      .sort((a, b) => a.q - b.q);
    let acc = 0;
    const mid = points.find((p) => (acc += p.w) >= received / 2)?.q ?? NaN;
    const t0 = sentAt.get(id)!;
    return {
      id,
      first: Math.min(...points.map((p) => p.q)) - t0,
      median: mid - t0,
      last: Math.max(...points.map((p) => p.q)) - t0,
      lost:
        parts.reduce((s, t) => s + t.lost, 0) +
        reports.filter((r) => !r.telegrams.some((t) => t.id === id)).reduce((s, r) => s + r.clients, 0),
      duplicated: parts.reduce((s, t) => s + t.duplicated, 0),
    };
  });
}

const reportAll = (procs: Clients[]) =>
  Promise.all(procs.map((c) => c.ask<Report>({ type: 'report' }, 'report')));

/** Over the client processes' p50 / p99 / largest: the median of the p50s, the largest p99 and largest. */
function spreadOf(
  reports: Report[],
  part: 'recoveries' | 'rejoins' | 'firstAfterRejoin' | 'ticketRecoveries',
): number[] {
  const each = reports.flatMap((r) => (r[part].length ? [r[part]] : []));
  return [
    median(each.map((r) => r[0]!)),
    Math.max(...each.map((r) => r[1]!)),
    Math.max(...each.map((r) => r[2]!)),
  ];
}

/** Sends the telegrams: SPACED one at a time (each delivered to all first), then a burst. */
async function sendTelegrams(
  procs: Clients[],
  n: number,
  send: (k: number) => Promise<{ id: string; at: number }>,
  onBurst?: (k: number) => void,
  offset = 0,
  spaced = SPACED,
) {
  const sentAt = new Map<string, number>();
  let k = offset;
  for (let s = 0; s < spaced; s++, k++) {
    const { id, at } = await send(k);
    sentAt.set(id, at);
    if (!(await delivered(procs, n * sentAt.size, 30_000)))
      console.error(`telegram ${k}: not delivered to all in 30 s`);
    await sleep(200);
  }
  const burst: Promise<void>[] = [];
  for (let b = 0; b < BURST; b++, k++) {
    const index = k;
    burst.push(
      send(index).then(({ id, at }) => {
        sentAt.set(id, at);
      }),
    );
    onBurst?.(b);
    await sleep(BURST_GAP_MS);
  }
  await Promise.all(burst);
  return sentAt;
}

/** A burst's `onBurst` that kills `victim` (SIGKILL to its process group) after the burst's 3rd telegram. */
function killerOf(victim: Node): { onBurst: (b: number) => void; readonly killedAt: number } {
  let killedAt = 0;
  return {
    onBurst(b) {
      if (b !== 2) return;
      process.kill(-victim.process.pid!, 'SIGKILL');
      killedAt = now();
    },
    get killedAt() {
      return killedAt;
    },
  };
}

let serial = 0;
const ids: string[] = [];
async function ingestEew(): Promise<{ id: string; at: number }> {
  const raw = Buffer.concat([EEW, Buffer.from(`\n<!-- scale ${process.pid} ${++serial} -->\n`)]);
  const outcome = await ingestTelegram({ db, bus: messageBus }, raw, {
    fileName: '77_01_03_240613_VXSE45.xml',
    receivedTime: Date.now(),
  });
  const at = now();
  if (!outcome.ok) throw new Error(`ingest refused: ${outcome.reason}`);
  ids.push(outcome.stored.id);
  return { id: outcome.stored.id, at };
}

function summary(rows: ReturnType<typeof merge>) {
  return {
    telegrams: rows.length,
    firstMs: median(rows.map((r) => r.first)),
    medianMs: median(rows.map((r) => r.median)),
    lastMs: median(rows.map((r) => r.last)),
    lastMaxMs: Math.max(...rows.map((r) => r.last)),
    lost: rows.reduce((s, r) => s + r.lost, 0),
    duplicated: rows.reduce((s, r) => s + r.duplicated, 0),
  };
}

const f1 = (x: number) => x.toFixed(1).padStart(8);

async function runOnce(n: number, run: number) {
  await accountsFor(n);
  const workers = Math.ceil(n / nodeCount / PER_WORKER);
  const procs = Array.from({ length: Math.ceil(n / PER_CLIENT_PROCESS) }, () => new Clients());
  for (const c of procs) clientProcesses.push(c.child);
  const clientPids = procs.map((c) => c.child.pid!);
  await sleep(1500);

  // Namazu.
  const nodes: Node[] = [];
  for (let i = 0; i < nodeCount; i++) nodes.push(await startNamazu(workers));
  await warmUp(procs, 'namazu', nodes, n);
  const rss0 = serverRss(nodes);
  const sessions0 = Number(
    (await db.query<{ n: string }>('SELECT count(*) AS n FROM socket_sessions'))[0]!.n,
  );
  const stormCpu0 = cpuOf(nodes.flatMap((x) => x.pids));
  const storm = await connectAll(procs, 'namazu', nodes, n);
  const stormCpuMs = ((cpuOf(nodes.flatMap((x) => x.pids)) - stormCpu0) * 1000) / n;
  const sessions =
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM socket_sessions'))[0]!.n) - sessions0;
  await sleep(3000);
  const rssPerConn = (serverRss(nodes) - rss0) / n / 1024;
  const serverPids = nodes.flatMap((x) => x.pids);
  const cpu0 = cpuOf(serverPids);
  const ccpu0 = cpuOf(clientPids);
  ids.length = 0;
  const sentAt = await sendTelegrams(procs, n, () => ingestEew());
  await delivered(procs, n * sentAt.size, 30_000);
  const cpuPerMsg = ((cpuOf(serverPids) - cpu0) * 1e6) / (n * sentAt.size);
  const clientCpuPerMsg = ((cpuOf(clientPids) - ccpu0) * 1e6) / (n * sentAt.size);
  const reports = await reportAll(procs);
  const namazu = summary(merge(reports, sentAt));
  const order = [...sentAt.keys()];
  const payloads = order.map((id) => reports.flatMap((r) => r.telegrams).find((t) => t.id === id)!.payload);

  // The fault: a node killed during a burst; then one more EEW to everyone.
  let fault: Record<string, unknown> | null = null;
  if (kill) {
    await Promise.all(procs.map((c) => c.ask({ type: 'reset' }, 'reset')));
    const killer = killerOf(nodes[0]!);
    const faultSent = await sendTelegrams(procs, n, () => ingestEew(), killer.onBurst, 0, 0);
    const allBurst = await delivered(procs, n * faultSent.size, 90_000);
    const settled = (now() - killer.killedAt) / 1000;
    await sleep(1000);
    const last = await ingestEew();
    faultSent.set(last.id, last.at);
    await delivered(procs, n * faultSent.size, 30_000);
    const faultReports = await reportAll(procs);
    const rows = merge(faultReports, faultSent);
    const [recoveryP50Ms, recoveryP99Ms, recoveryMaxMs] = spreadOf(faultReports, 'recoveries');
    const [rejoinP50Ms, rejoinP99Ms] = spreadOf(faultReports, 'rejoins');
    const [firstAfterRejoinP50Ms, firstAfterRejoinP99Ms] = spreadOf(faultReports, 'firstAfterRejoin');
    const [ticketRecoveryP50Ms, ticketRecoveryP99Ms] = spreadOf(faultReports, 'ticketRecoveries');
    fault = {
      ...summary(rows),
      allReceivedBurst: allBurst,
      secondsToSettle: settled,
      reconnects: faultReports.reduce((s, r) => s + r.reconnects, 0),
      recovered: faultReports.reduce((s, r) => s + r.recovered, 0),
      stillDropped: faultReports.reduce((s, r) => s + r.stillDropped, 0),
      recoveredAfterRetry: faultReports.reduce((s, r) => s + r.recoveredAfterRetry, 0),
      recoveryP50Ms,
      recoveryP99Ms,
      recoveryMaxMs,
      // Where the recovery's time went: coming back (the random delay, refusals and retries, the
      // handshake) and then the first telegram (the catch-up of what was missed).
      rejoinP50Ms,
      rejoinP99Ms,
      firstAfterRejoinP50Ms,
      firstAfterRejoinP99Ms,
      // The ticket flow's clients (one in TICKET_EVERY) alone: their p99 beside everyone's.
      ticketRecoveryP50Ms,
      ticketRecoveryP99Ms,
      afterLastEew: rows.at(-1),
      errors: faultReports.map((r) => r.errors),
    };
  }
  await Promise.all(procs.map((c) => c.ask({ type: 'close' }, 'closed')));
  await stopNodes(nodes);

  // The reference: bare `ws` nodes, the same bytes.
  const payloadFile = join(scratch, `payloads-${n}-${run}.json`);
  writeFileSync(payloadFile, JSON.stringify(payloads));
  const bareNodes: Node[] = [];
  for (let i = 0; i < nodeCount; i++) bareNodes.push(await startBare(workers, payloadFile));
  await warmUp(procs, 'bare', bareNodes, n);
  const bareRss0 = serverRss(bareNodes);
  const bareStorm = await connectAll(procs, 'bare', bareNodes, n);
  await sleep(3000);
  const bareRssPerConn = (serverRss(bareNodes) - bareRss0) / n / 1024;
  const barePids = bareNodes.flatMap((x) => x.pids);
  const bcpu0 = cpuOf(barePids);
  // The bare nodes send the k-th payload when told k on the bus.
  const publishBare = async (k: number) => {
    await messageBus.publish(BARE_CHANNEL, String(k));
    return { id: order[k]!, at: now() };
  };
  const bareSent = await sendTelegrams(procs, n, publishBare);
  await delivered(procs, n * bareSent.size, 30_000);
  const bareCpuPerMsg = ((cpuOf(barePids) - bcpu0) * 1e6) / (n * bareSent.size);
  const bare = summary(merge(await reportAll(procs), bareSent));

  // The same fault on the bare topology, the reference of how long the dropped clients take to have
  // a socket again: bare clients have no resume, so it is drop → socket open (Namazu's `rejoin`).
  let bareFault: Record<string, unknown> | null = null;
  if (kill) {
    await Promise.all(procs.map((c) => c.ask({ type: 'reset' }, 'reset')));
    await sendTelegrams(procs, n, publishBare, killerOf(bareNodes[0]!).onBurst, 0, 0);
    // Bare clients never moved: the killed node holds the clients connectAll put on it.
    const allBack = await everyoneBack(procs, clientsOfNode(0, nodeCount, n, procs.length), 90_000);
    const reports = await reportAll(procs);
    const [rejoinP50Ms, rejoinP99Ms, rejoinMaxMs] = spreadOf(reports, 'rejoins');
    bareFault = {
      reconnects: reports.reduce((s, r) => s + r.reconnects, 0),
      allBack,
      rejoinP50Ms,
      rejoinP99Ms,
      rejoinMaxMs,
      errors: reports.map((r) => r.errors),
    };
  }
  await Promise.all(procs.map((c) => c.ask({ type: 'close' }, 'closed')));
  await stopNodes(bareNodes);
  for (const c of procs) c.child.send({ type: 'quit' });

  const ratio = namazu.lastMs / bare.lastMs;
  console.log(
    `N=${n} run ${run + 1}: ${nodeCount} nodes × ${workers} workers, ${procs.length} client processes, bus ${bus}\n` +
      `  connect: namazu ${storm.seconds.toFixed(1)} s (${Math.round(n / storm.seconds)}/s, ${sessions} sessions, ${storm.failedAttempts} retries; ticket ${storm.ticketMs.toFixed(0)} ms, open ${storm.openMs.toFixed(0)} ms each; server CPU ${stormCpuMs.toFixed(2)} ms per connection) · bare ${bareStorm.seconds.toFixed(1)} s\n` +
      `  RSS/conn: namazu ${rssPerConn.toFixed(1)} KiB · bare ${bareRssPerConn.toFixed(1)} KiB\n` +
      `  ingest → first / median / last (ms, median of ${sentAt.size}): namazu ${f1(namazu.firstMs)} ${f1(namazu.medianMs)} ${f1(namazu.lastMs)} (max ${namazu.lastMaxMs.toFixed(0)})` +
      ` · bare ${f1(bare.firstMs)} ${f1(bare.medianMs)} ${f1(bare.lastMs)} (max ${bare.lastMaxMs.toFixed(0)}) · last ${ratio.toFixed(2)}×\n` +
      `  lost / duplicated: namazu ${namazu.lost} / ${namazu.duplicated} · bare ${bare.lost} / ${bare.duplicated}\n` +
      `  CPU per delivered message: namazu ${cpuPerMsg.toFixed(1)} µs (clients ${clientCpuPerMsg.toFixed(1)} µs) · bare ${bareCpuPerMsg.toFixed(1)} µs`,
  );
  if (fault) console.log(`  node killed mid-burst: ${JSON.stringify(fault)}`);
  if (bareFault) console.log(`  bare node killed mid-burst: ${JSON.stringify(bareFault)}`);
  emitResult('scale', {
    clients: n,
    run,
    bus,
    nodes: nodeCount,
    workersPerNode: workers,
    clientProcesses: procs.length,
    connectSeconds: storm.seconds,
    sessions,
    sessionsPerSecond: sessions / storm.seconds,
    connectsPerSecond: n / storm.seconds,
    stormCpuMsPerConnection: stormCpuMs,
    bareConnectSeconds: bareStorm.seconds,
    rssPerConnectionKiB: rssPerConn,
    bareRssPerConnectionKiB: bareRssPerConn,
    cpuMicrosecondsPerMessage: cpuPerMsg,
    clientCpuMicrosecondsPerMessage: clientCpuPerMsg,
    bareCpuMicrosecondsPerMessage: bareCpuPerMsg,
    namazu,
    bare,
    fault,
    bareFault,
  });
}

// Stopped by a signal: the nodes and client processes go with this process ('exit' above).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1));
process.on('unhandledRejection', (err) => {
  console.error(err);
  process.exit(1);
});
for (let run = 0; run < runs; run++) for (const n of sizes) await runOnce(n, run);
console.log(
  `load average: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
rmSync(scratch, { recursive: true, force: true });
await messageBus.close();
await dropDatabase();
process.exit(0);
