// Resume and server-sent events under load (docs/realtime.md "Resume", "Server-sent events"), each
// figure beside its reference measured in the same run. Run through bench/resume-stream.sh (it
// raises the open-file limit). Needs PostgreSQL: NAMAZU_BENCH_DATABASE_URL (or NAMAZU_TEST_DATABASE_URL).
//
//   bench/resume-stream.sh [--clients 5000] [--missed 1000] [--rounds 5]
//
// Processes as bench/fanout.ts: this one creates accounts and ingests real telegrams with the
// ingest pipeline; `namazu serve` (PostgreSQL bus) delivers them; bench/resume-stream-clients.ts
// holds the clients (the resuming one in a second process of it). Latency = receipt − the return of the ingest call (one clock across processes).
//
// 1. Resume, with N live WebSocket clients (eew.* only) open. Each round: an EEW (VXSE45) to the N
//    with nothing else under way (the reference); then M earthquake telegrams (VXSE51) that no open
//    connection takes — the ones a dropped client missed; then `POST /v2/socket` with `after` = the
//    id of the EEW, and that ticket's socket (eew.* and telegram.earthquake) is opened. When its first
//    caught-up telegram arrives, another EEW is ingested: it goes to the N at once and to the
//    resuming socket after its M. Figures: from the resuming socket's connection request (ticket
//    redemption included) to its M-th and to its M+1-th telegram; ingest → last of the N for the EEW
//    during the catch-up, against the reference EEW of the same round. Every resuming socket must get
//    exactly the M ids then the live one, in order.
// 2. Fan-out to N server-sent-event streams against N WebSocket clients: the same EEW telegrams,
//    ingest → first and last client, in phases — the N sockets (alone on the server), then the N
//    streams (alone), then the sockets again — so that neither transport is written after the other
//    in one broadcast.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { plans } from '../src/accounts/plans.ts';
import { openBus } from '../src/bus/open.ts';
import { sessionStore, startSession } from '../src/sessions/socket-sessions.ts';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { createBenchAccount, type BenchAccount } from './bench-account.ts';
import { createBenchDatabase } from './bench-database.ts';
import { emitResult } from './result.ts';
import { serveNamazu } from './namazu-bin.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '5000' },
    missed: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
  },
});
const clientCount = Number(values.clients);
const missed = Number(values.missed);
const rounds = Number(values.rounds);
const adminUrl = process.env.NAMAZU_BENCH_DATABASE_URL || process.env.NAMAZU_TEST_DATABASE_URL;
if (!adminUrl) throw new Error('set NAMAZU_BENCH_DATABASE_URL (a PostgreSQL server)');

const CLIENTS = fileURLToPath(new URL('./resume-stream-clients.ts', import.meta.url));
const FIXTURES =
  process.env.NAMAZU_FIXTURES ?? fileURLToPath(new URL('../../shared/fixtures', import.meta.url));
const SAMPLES = join(FIXTURES, 'jma-xml/jma-official-samples');
const EEW = {
  name: '77_01_03_240613_VXSE45.xml',
  raw: readFileSync(join(SAMPLES, '77_01_03_240613_VXSE45.xml')),
};
const QUAKE = {
  name: '32-35_04_01_100831_VXSE51.xml',
  raw: readFileSync(join(SAMPLES, '32-35_04_01_100831_VXSE51.xml')),
};
const LIVE_CLASSES = ['eew.forecast', 'eew.warning'];
const RESUME_CLASSES = [...LIVE_CLASSES, 'telegram.earthquake'];
const SECRET = 'bench-secret-0123456789abcdef0123456789';
const CONNECTIONS_PER_ACCOUNT = plans.reduce((n, p) => n + p.connectionCounts, 0);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A fresh database for this run.
const {
  databaseUrl,
  db,
  pepper,
  drop: dropDatabase,
} = await createBenchDatabase(adminUrl, 'namazu_bench_resume', SECRET);
const messageBus = await openBus({ bus: 'postgres', databaseUrl, redisUrl: null });

// The server.
const served = await serveNamazu({
  NAMAZU_DATABASE_URL: databaseUrl,
  NAMAZU_BUS: 'postgres',
  NAMAZU_SECRET: SECRET,
});
const server = served.child;
const port = served.ports[0]!;
const base = `http://127.0.0.1:${port}`;
const wsBase = `ws://127.0.0.1:${port}/v2/websocket?ticket=`;

// The clients, and their messages by type. The resuming client has a process of its own, as it
// would be another device: in the process of the N, reading its 1,000 telegrams would delay theirs.
const clients = fork(CLIENTS, [], { execArgv: ['--import', 'tsx'] });
const resumerProcess = fork(CLIENTS, [], { execArgv: ['--import', 'tsx'] });
const inbox = new Map<string, Record<string, unknown>[]>();
const waiting = new Map<string, (m: Record<string, unknown>) => void>();
const receive = (m: Record<string, unknown>) => {
  const type = String(m.type);
  if (type === 'error') console.error('client error', m);
  const waiter = waiting.get(type);
  if (waiter) {
    waiting.delete(type);
    waiter(m);
  } else inbox.set(type, [...(inbox.get(type) ?? []), m]);
};
clients.on('message', receive);
resumerProcess.on('message', receive);
/** The next message of this type from the clients (one waiter per type at a time). */
function next<T = Record<string, unknown>>(type: string): Promise<T> {
  const queued = inbox.get(type)?.shift();
  if (queued) return Promise.resolve(queued as T);
  return new Promise((resolve) => waiting.set(type, resolve as (m: Record<string, unknown>) => void));
}
function ask<T = Record<string, unknown>>(command: object, answer: string): Promise<T> {
  const reply = next<T>(answer);
  clients.send(command);
  return reply;
}

// Accounts with every plan and an API key each; a connection takes the next free slot. Slots are
// used again once the connections that held them are closed (phase 2).
const store = sessionStore(db, pepper, 30_000);
const accounts: BenchAccount[] = [];
async function account(index: number) {
  while (accounts.length <= index) {
    const scopes = ['socket.start', 'eew.get.forecast', 'eew.get.warning', 'telegram.get.earthquake'];
    accounts.push(await createBenchAccount(db, pepper, `bench${accounts.length}@example.test`, scopes));
  }
  return accounts[index]!;
}
const slotAccount = (slot: number) => account(Math.floor(slot / CONNECTIONS_PER_ACCOUNT));

async function socketUrls(n: number): Promise<string[]> {
  const urls: string[] = [];
  for (let slot = 0; slot < n; slot++) {
    const started = await startSession(
      store,
      (await slotAccount(slot)).id,
      { classifications: LIVE_CLASSES, types: null, test: 'no', formatMode: 'raw', appName: 'bench' },
      Date.now(),
    );
    if (!started.ok) throw new Error(`cannot start a session: ${started.reason}`);
    urls.push(wsBase + started.ticket);
  }
  return urls;
}

let serial = 0;
/** Ingests a copy of a fixture made unique; returns its telegram id and when the ingest call returned. */
async function ingest(fixture: { name: string; raw: Buffer }): Promise<{ id: string; at: number }> {
  const raw = Buffer.concat([fixture.raw, Buffer.from(`\n<!-- bench ${process.pid} ${++serial} -->\n`)]);
  const outcome = await ingestTelegram({ db, bus: messageBus }, raw, {
    fileName: fixture.name,
    receivedTime: Date.now(),
  });
  const at = now();
  if (!outcome.ok) throw new Error(`ingest refused: ${outcome.reason}`);
  return { id: outcome.stored.id, at };
}

interface Round {
  first: number;
  last: number;
  payload: string;
  extra: number;
}
const failures: string[] = [];
/** One EEW to the open clients: ingest → first and last receipt. */
async function fanoutRound(label: string): Promise<{ id: string; first: number; last: number }> {
  await ask({ type: 'expect', count: clientCount }, 'expecting');
  const round = next<Round>('round');
  const { id, at } = await ingest(EEW);
  const r = await round;
  if (!r.payload.includes(id)) failures.push(`${label}: the first client received another telegram`);
  if (r.extra > 0) failures.push(`${label}: ${r.extra} messages beyond the expected ones`);
  return { id, first: r.first - at, last: r.last - at };
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');

// --- The N live sockets.
let t = performance.now();
await ask({ type: 'connect', urls: await socketUrls(clientCount) }, 'ready');
console.log(
  `resume-stream: ${clientCount} clients, ${missed} missed telegrams, ${rounds} rounds; ` +
    `${clientCount} sockets open in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);
await sleep(2000);

// --- 1. Resume.
// An account of its own, after those of the N slots.
const resumer = await account(Math.ceil(clientCount / CONNECTIONS_PER_ACCOUNT));
const reference: number[] = [];
const during: number[] = [];
const toMissed: number[] = [];
const toLive: number[] = [];
const fromOpen: number[] = [];
let overlapping = 0;
for (let r = 0; r < rounds; r++) {
  // The reference EEW is also the telegram the resuming client handled last before it dropped.
  const alone = await fanoutRound(`resume round ${r + 1}, reference`);
  reference.push(alone.last);
  const lastHandled = alone.id;
  const expectedIds: string[] = [];
  for (let i = 0; i < missed; i++) expectedIds.push((await ingest(QUAKE)).id);
  const res = await fetch(`${base}/v2/socket`, {
    method: 'POST',
    headers: { authorization: resumer.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ classifications: RESUME_CLASSES, after: lastHandled }),
  });
  const body = (await res.json()) as { ticket?: string };
  if (!body.ticket) throw new Error(`POST /v2/socket with after: ${res.status} ${JSON.stringify(body)}`);
  await ask({ type: 'expect', count: clientCount }, 'expecting');
  const round = next<Round>('round');
  const resumed = next<{ started: number; opened: number; ids: string[]; times: number[] }>('resumed');
  const catchingUp = next('catching-up');
  resumerProcess.send({ type: 'resume', url: wsBase + body.ticket, count: missed + 1 });
  await catchingUp;
  const live = await ingest(EEW);
  const others = await round;
  const caughtUp = await resumed;
  expectedIds.push(live.id);
  if (caughtUp.ids.join() !== expectedIds.join())
    failures.push(
      `resume round ${r + 1}: the resuming socket did not get the ${missed} ids then the live one`,
    );
  if (others.extra > 0)
    failures.push(`resume round ${r + 1}: ${others.extra} messages beyond the expected ones`);
  const missedAt = caughtUp.times[missed - 1]!;
  if (live.at < missedAt) overlapping++;
  during.push(others.last - live.at);
  toMissed.push(missedAt - caughtUp.started);
  toLive.push(caughtUp.times[missed]! - caughtUp.started);
  fromOpen.push(missedAt - caughtUp.opened);
  await sleep(500);
}

const resume = {
  clients: clientCount,
  missed,
  rounds,
  toMissedMs: median(toMissed),
  toLiveMs: median(toLive),
  fromOpenToMissedMs: median(fromOpen),
  liveLastDuringMs: median(during),
  liveLastReferenceMs: median(reference),
  overlapping,
};
console.log(
  `\n1. resume after ${missed} missed telegrams, ${clientCount} other sockets live; medians of ${rounds} rounds`,
);
console.log(
  `  connection request → ${missed}th caught-up telegram: ${ms(resume.toMissedMs)} (rounds: ${list(toMissed)}); ` +
    `→ the next live one: ${ms(resume.toLiveMs)} (${list(toLive)}); target ≤ 1000 ms`,
);
console.log(
  `  (from the socket's opening, after its redemption, to the ${missed}th: ${ms(resume.fromOpenToMissedMs)})`,
);
console.log(
  `  ingest → last of ${clientCount} live sockets, EEW during the catch-up: ${ms(resume.liveLastDuringMs)} (${list(during)}); ` +
    `reference, EEW with no catch-up, same rounds: ${ms(resume.liveLastReferenceMs)} (${list(reference)}); ` +
    `${(resume.liveLastDuringMs / resume.liveLastReferenceMs).toFixed(2)}×, target ≤ 1.10×`,
);
console.log(
  `  the live EEW was ingested before the catch-up's ${missed}th telegram arrived in ${overlapping} of ${rounds} rounds`,
);
emitResult('resume-stream', { case: 'resume', ...resume });

// --- 2. Fan-out: sockets, streams, sockets, in phases of `rounds` rounds.
/** CPU time of a process in ms (user + system; clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
interface Phase {
  first: number[];
  last: number[];
  /** CPU time of the server and of the clients process during the rounds. */
  serverCpuMs: number;
  clientsCpuMs: number;
}
const phase = async (label: string, out: Phase) => {
  const server0 = cpuMs(server.pid!);
  const clients0 = cpuMs(clients.pid!);
  for (let r = 0; r < rounds; r++) {
    const { first, last } = await fanoutRound(`${label} round ${r + 1}`);
    out.first.push(first);
    out.last.push(last);
    await sleep(100);
  }
  out.serverCpuMs += cpuMs(server.pid!) - server0;
  out.clientsCpuMs += cpuMs(clients.pid!) - clients0;
};
const sockets: Phase = { first: [], last: [], serverCpuMs: 0, clientsCpuMs: 0 };
const streams: Phase = { first: [], last: [], serverCpuMs: 0, clientsCpuMs: 0 };
/** CPU µs per delivered message. */
const perMessage = (cpu: number, phaseRounds: number) => (cpu * 1000) / (phaseRounds * clientCount);
await phase('sockets', sockets);
await ask({ type: 'close-all' }, 'closed');
await sleep(2000);
t = performance.now();
const query = `classifications=${LIVE_CLASSES.join(',')}`;
const requests = await Promise.all(
  Array.from({ length: clientCount }, async (_, slot) => ({
    url: `${base}/v2/stream?${query}`,
    authorization: (await slotAccount(slot)).authorization,
  })),
);
await ask({ type: 'stream', requests }, 'ready');
const streamsOpened = (performance.now() - t) / 1000;
await sleep(2000);
await phase('streams', streams);
await ask({ type: 'close-all' }, 'closed');
await sleep(2000);
await ask({ type: 'connect', urls: await socketUrls(clientCount) }, 'ready');
await sleep(2000);
await phase('sockets again', sockets);

const fan = {
  clients: clientCount,
  rounds: rounds * 2,
  socketFirstMs: median(sockets.first),
  socketLastMs: median(sockets.last),
  streamFirstMs: median(streams.first),
  streamLastMs: median(streams.last),
  streamsOpenedSeconds: streamsOpened,
  serverCpuMicrosecondsPerSocketMessage: perMessage(sockets.serverCpuMs, rounds * 2),
  serverCpuMicrosecondsPerStreamEvent: perMessage(streams.serverCpuMs, rounds),
  clientsCpuMicrosecondsPerSocketMessage: perMessage(sockets.clientsCpuMs, rounds * 2),
  clientsCpuMicrosecondsPerStreamEvent: perMessage(streams.clientsCpuMs, rounds),
};
console.log(`\n2. fan-out of an EEW (VXSE45), ingest → first / last client; medians`);
console.log(
  `  ${clientCount} server-sent-event streams (${rounds} rounds): ${ms(fan.streamFirstMs)} / ${ms(fan.streamLastMs)} (last: ${list(streams.last)})`,
);
console.log(
  `  ${clientCount} WebSocket clients (${rounds} rounds before the streams, ${rounds} after): ${ms(fan.socketFirstMs)} / ${ms(fan.socketLastMs)} (last: ${list(sockets.last)})`,
);
console.log(
  `  streams / sockets, last client: ${(fan.streamLastMs / fan.socketLastMs).toFixed(2)}×, target ≤ 1.2×; ` +
    `${clientCount} streams opened in ${streamsOpened.toFixed(1)} s`,
);
console.log(
  `  CPU per delivered message, streams / sockets: server ${fan.serverCpuMicrosecondsPerStreamEvent.toFixed(1)} / ` +
    `${fan.serverCpuMicrosecondsPerSocketMessage.toFixed(1)} µs, clients process ` +
    `${fan.clientsCpuMicrosecondsPerStreamEvent.toFixed(1)} / ${fan.clientsCpuMicrosecondsPerSocketMessage.toFixed(1)} µs`,
);
emitResult('resume-stream', { case: 'sse-fanout', ...fan });

console.log(
  `load average: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
if (failures.length > 0) {
  console.error(`checks failed:\n  ${failures.join('\n  ')}`);
  process.exitCode = 1;
}

const clientsExited = [clients, resumerProcess].map((p) => new Promise((r) => p.on('exit', r)));
for (const p of [clients, resumerProcess]) p.send({ type: 'quit' });
await Promise.all(clientsExited);
await served.stop();
await messageBus.close();
await dropDatabase();
process.exit();
