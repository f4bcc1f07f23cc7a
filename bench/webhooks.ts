// Webhook delivery: commit → first attempt for an early warning to 1,000 subscriptions, the same
// beside a receiver that never answers and holds a backlog, a burst of 100 telegrams to 1,000
// subscriptions (10^5 requests) with the event loop's longest stall, and live WebSocket delivery
// beside such a burst against the same delivery with no burst.
//
//   node --import tsx bench/webhooks.ts [--subscriptions 1000] [--hosts 50] [--rounds 5] [--burst 100]
//     [--live 200] [--probes 100] [--stalled 20] [--nice 10] [--receivers-nice 10]
//
// The server runs in this process on a fresh embedded database (or on PostgreSQL with
// NAMAZU_BENCH_DATABASE_URL, in a database created for the run and dropped after it); the receivers
// in a child process (bench/webhook-receiver.ts) answer 204 at once, on `hosts` loopback addresses:
// each account's 20 subscriptions (the cap) post to a host of their own, as receivers on different
// machines would (`--hosts 1` puts every subscription on one host, which the per-host bound of 32
// attempts at once then paces). Latency = arrival at the receiver − the return of the ingest call
// (its COMMIT). Reference, in the same run: this process posting the same number of requests of the
// same size to the same receivers in a plain loop (Node's http, as the sender, keep-alive, the same
// bounds: 128 at once, 32 to a host), latency from the loop's start; its event-loop stall over the
// same 10^5 requests. Both keep their connections from round to round (warm after the first round;
// the first early-warning round is one of the five whose median is quoted, for both).
//
// `--nice N` (PostgreSQL only) is the deployment of docs/webhooks.md "Which nodes deliver" on one
// machine: this process delivers no webhooks and serves the sockets, and a node of its own under
// `nice -n N` delivers them all, so that the kernel gives the socket node the CPU first.
// `--receivers-nice N` runs the receivers under `nice -n N`: they stand in for other machines, and
// on this one they take a core's worth of CPU in a burst.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createAccount } from '../src/accounts/accounts.ts';
import { setConnectionLimit } from '../src/accounts/connection-limit.ts';
import { addContract } from '../src/accounts/contracts.ts';
import { sessionStore, startSession } from '../src/sessions/socket-sessions.ts';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { SecretBox } from '../src/security/sealed.ts';
import { MAX_ATTEMPTS_PER_HOST, WEBHOOK_SECRET_PURPOSE } from '../src/webhooks/service.ts';
import { createSubscription } from '../src/webhooks/subscriptions.ts';
import { webhookSpec } from '../test/support/webhook-spec.ts';
import { startBenchServer } from './in-process-server.ts';
import { serveNamazu } from './namazu-bin.ts';
import { forkFanoutClients } from './fanout-clients-process.ts';
import { emitResult } from './result.ts';
import { httpPost, postAll, startReceivers } from './webhook-receivers.ts';
import { median, percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    burst: { type: 'string', default: '100' },
    hosts: { type: 'string', default: '50' },
    stalled: { type: 'string', default: '20' },
    live: { type: 'string', default: '200' },
    probes: { type: 'string', default: '100' },
    nice: { type: 'string' },
    'receivers-nice': { type: 'string' },
  },
});
const NICE = values.nice === undefined ? null : Number(values.nice);
const RECEIVERS_NICE = values['receivers-nice'] === undefined ? undefined : Number(values['receivers-nice']);
const HOSTS = Number(values.hosts);
/** Subscriptions of one account whose receiver never answers, on a host of its own. */
const STALLED = Number(values.stalled);
const SUBS = Number(values.subscriptions);
const ROUNDS = Number(values.rounds);
const BURST = Number(values.burst);
/** WebSocket clients open beside the webhooks, and the reports ingested for them per phase. */
const LIVE = Number(values.live);
const PROBES = Number(values.probes);
/** The pause between two of those reports. */
const PROBE_GAP_MS = 100;
const FIXTURES =
  process.env.NAMAZU_FIXTURES ?? fileURLToPath(new URL('../../shared/fixtures', import.meta.url));
const EEW = readFileSync(join(FIXTURES, 'jma-xml/jma-official-samples/77_01_03_240613_VXSE45.xml'));
const QUAKE = readFileSync(join(FIXTURES, 'jma-xml/jma-official-samples/32-35_01_03_100514_VXSE53.xml'));
const now = () => performance.timeOrigin + performance.now();
const ms = (x: number) => `${x.toFixed(1)} ms`;

// One loopback address more, for the stalled receiver.
const receivers = await startReceivers(HOSTS + 1, RECEIVERS_NICE);
const { port, arrivals } = receivers;

const SECRET = 'bench-secret-0123456789abcdef0123456789';
const bench = await startBenchServer(
  'namazu-bench-webhooks',
  SECRET,
  { webhookAllowPrivate: true, webhookDelivery: NICE === null },
  LIVE > 0,
);
const { server } = bench;
const { ctx } = server;
if (NICE !== null && !bench.databaseUrl) throw new Error('--nice needs NAMAZU_BENCH_DATABASE_URL');
/** Subscription i's receiver: the host of its account (20 subscriptions to an account). */
const urlOf = (i: number) => `http://127.0.0.${1 + (Math.floor(i / 20) % HOSTS)}:${port}/hook`;
const urls = Array.from({ length: SUBS }, (_, i) => urlOf(i));
const stalledUrl = `http://127.0.0.${HOSTS + 1}:${port}/stalled`;
const box = new SecretBox(ctx.pepper, WEBHOOK_SECRET_PURPOSE);
const subscriptionSpec = (url: string) =>
  webhookSpec(url, { classifications: ['eew.forecast', 'eew.warning'] });
// Accounts of 20 subscriptions each (the cap).
for (let i = 0; i < SUBS; i += 20) {
  const account = await createAccount(ctx.db, {
    email: `bench${i}-${Date.now()}@example.test`,
    password: 'password-1',
  });
  for (const c of ['eew.forecast', 'eew.warning', 'telegram.earthquake'])
    await addContract(ctx.db, account.id, c);
  for (let j = i; j < Math.min(SUBS, i + 20); j++) {
    const created = await createSubscription(
      ctx.db,
      box,
      account.id,
      subscriptionSpec(urls[j]!),
      new URL(urls[j]!).hostname,
    );
    if (!created.ok) throw new Error(created.reason);
  }
}

/** With --nice: the node that delivers every webhook, on this run's database. */
const deliveringNode =
  NICE === null
    ? null
    : await serveNamazu(
        {
          NAMAZU_DATABASE_URL: bench.databaseUrl!,
          NAMAZU_BUS: 'postgres',
          NAMAZU_SECRET: SECRET,
          NAMAZU_WEBHOOK_ALLOW_PRIVATE: 'true',
        },
        1,
        NICE,
      );

let made = 0;
const telegram = (xml: Buffer) =>
  Buffer.concat([xml, Buffer.from(`\n<!-- bench ${++made} ${Date.now()} -->\n`)]);
async function ingest(xml = EEW): Promise<number> {
  const out = await ingestTelegram(ctx, telegram(xml), { fileName: 'bench.xml', receivedTime: Date.now() });
  if (!out.ok) throw new Error(out.reason);
  return now();
}

// The reference's connections are kept across rounds, as the sender keeps its own: both are warm
// after the first round.
const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_ATTEMPTS_PER_HOST });

/** The reference: the same number of posts of the same body to the same receivers from a plain loop. */
async function reference(count: number, body: Buffer): Promise<number[]> {
  const started = now();
  await postAll(count, urls, httpPost(agent, body));
  return (await arrivals(count)).map((t) => t - started);
}

/** A pause between the rounds of the two, longer than the successes' gathering (100 ms) and record. */
const QUIET_MS = 300;
/** The reference's body: about an early warning's data message. */
const body = Buffer.alloc(3000, 97);
type Spread = { p50: number; p99: number };
/** `ROUNDS` early warnings, one at a time: the medians of each round's p50 and p99, commit → arrival. */
async function eewRounds(): Promise<{ ours: Spread; theirs: Spread }> {
  const ours: Spread[] = [];
  const theirs: Spread[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const committed = await ingest();
    const got = (await arrivals(SUBS)).map((t) => t - committed);
    ours.push({ p50: percentile(got, 50), p99: percentile(got, 99) });
    // The queue's last slices and the successes' record may still be written: each round alone.
    await sleep(QUIET_MS);
    const ref = await reference(SUBS, body);
    await sleep(QUIET_MS);
    theirs.push({ p50: percentile(ref, 50), p99: percentile(ref, 99) });
  }
  const mid = (xs: Spread[]) => ({ p50: median(xs.map((o) => o.p50)), p99: median(xs.map((o) => o.p99)) });
  return { ours: mid(ours), theirs: mid(theirs) };
}

// 1. Commit → first attempt, an early warning to every subscription.
const { ours: eew, theirs: ref } = await eewRounds();
console.log(`EEW to ${SUBS} subscriptions on ${HOSTS} hosts, commit → arrival (median of ${ROUNDS} rounds):`);
// The ratio too: on a noisy machine the reference moves as much as Namazu from run to run.
console.log(
  `  namazu     p50 ${ms(eew.p50)}  p99 ${ms(eew.p99)}   (p50 ${(eew.p50 / ref.p50).toFixed(2)}× the plain loop's)`,
);
console.log(
  `  plain loop p50 ${ms(ref.p50)}  p99 ${ms(ref.p99)}   (reference: posting alone, from its start)`,
);

// 2. A burst: BURST telegrams to every subscription, the event loop watched.
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const burstStart = now();
for (let i = 0; i < BURST; i++) await ingest();
await arrivals(SUBS * BURST);
const burstMs = now() - burstStart;
delay.disable();
const stall = delay.max / 1e6;
const refDelay = monitorEventLoopDelay({ resolution: 1 });
refDelay.enable();
const refStart = now();
await reference(SUBS * BURST, body);
const refMs = now() - refStart;
refDelay.disable();
console.log(`Burst of ${BURST} telegrams × ${SUBS} subscriptions (${SUBS * BURST} requests):`);
console.log(
  `  namazu     ${(burstMs / 1000).toFixed(1)} s, longest event-loop stall ${ms(stall)}${NICE === null ? '' : ' (of the socket node: another process delivers)'}`,
);
console.log(
  `  plain loop ${(refMs / 1000).toFixed(1)} s, longest event-loop stall ${ms(refDelay.max / 1e6)}   (reference)`,
);
// 3. Live socket delivery beside a burst: LIVE WebSocket clients (bench/fanout-clients.ts, in a
// process of their own) take earthquake reports, which no subscription takes. PROBES reports, one
// PROBE_GAP_MS after the last one's ingest returned, alone (the reference) and again from the start
// of a burst of BURST early warnings to the subscriptions; three pairs, their order alternated.
// Latency: the return of a report's ingest call (its commit) → its arrival at a socket, over every
// socket and report, as the fan-out benches count it. The sockets are on this process, which
// delivers the webhooks; on PostgreSQL, again on a node of their own started with
// NAMAZU_WEBHOOK_DELIVERY=false (docs/webhooks.md "Which nodes deliver").
type Live = { p50: number; p99: number };
async function liveBesideBurst(socketPort: number): Promise<{ alone: Live[]; burst: Live[] }> {
  const { process: clients, ask, reply } = forkFanoutClients();
  const account = await createAccount(ctx.db, {
    email: `live-${socketPort}-${Date.now()}@example.test`,
    password: 'password-1',
  });
  await addContract(ctx.db, account.id, 'telegram.earthquake');
  await setConnectionLimit(ctx.db, account.id, LIVE);
  const store = sessionStore(ctx.db, ctx.pepper, ctx.config.pingIntervalMs);
  const socketUrls: string[] = [];
  for (let i = 0; i < LIVE; i++) {
    const started = await startSession(
      store,
      account.id,
      {
        classifications: ['telegram.earthquake'],
        types: null,
        test: 'no',
        formatMode: 'raw',
        appName: 'bench',
      },
      Date.now(),
    );
    if (!started.ok) throw new Error(started.reason);
    socketUrls.push(`ws://127.0.0.1:${socketPort}/v2/websocket?ticket=${started.ticket}`);
  }
  await ask({ type: 'connect', urls: socketUrls });
  const phase = async (withBurst: boolean): Promise<Live> => {
    await ask({ type: 'expect', count: LIVE * PROBES, times: true });
    const round = reply();
    const burst = withBurst
      ? (async () => {
          for (let i = 0; i < BURST; i++) await ingest();
          await arrivals(SUBS * BURST);
        })()
      : null;
    const committed: number[] = [];
    for (let k = 0; k < PROBES; k++) {
      committed.push(await ingest(QUAKE));
      await sleep(PROBE_GAP_MS);
    }
    const times = (await round).times as number[][];
    await burst;
    const latencies = times.flatMap((mine) => mine.map((t, k) => t - committed[k]!));
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  };
  const alone: Live[] = [];
  const burst: Live[] = [];
  for (let pair = 0; pair < 3; pair++) {
    if (pair % 2 === 0) alone.push(await phase(false));
    burst.push(await phase(true));
    if (pair % 2 === 1) alone.push(await phase(false));
  }
  clients.send({ type: 'quit' });
  await once(clients, 'exit');
  return { alone, burst };
}

/** A node of its own for the sockets, on this run's database, that delivers no webhooks. */
const socketNode = (databaseUrl: string) =>
  serveNamazu({
    NAMAZU_DATABASE_URL: databaseUrl,
    NAMAZU_BUS: 'postgres',
    NAMAZU_SECRET: SECRET,
    NAMAZU_WEBHOOK_DELIVERY: 'false',
  });

const liveFigures: { topology: string; alone: Live[]; burst: Live[] }[] = [];
if (LIVE > 0) {
  liveFigures.push({
    topology:
      NICE === null
        ? 'sockets on the delivering process'
        : `sockets on a node with NAMAZU_WEBHOOK_DELIVERY=false, webhooks delivered by a node under nice ${NICE}`,
    ...(await liveBesideBurst(server.port)),
  });
  if (NICE === null && bench.databaseUrl) {
    const node = await socketNode(bench.databaseUrl);
    liveFigures.push({
      topology: 'sockets on a node with NAMAZU_WEBHOOK_DELIVERY=false',
      ...(await liveBesideBurst(node.ports[0]!)),
    });
    await node.stop();
  }
}
const liveRatio = (l: { alone: Live[]; burst: Live[] }) =>
  median(l.burst.map((b, i) => b.p99 / l.alone[i]!.p99));
for (const l of liveFigures) {
  const p99s = (xs: Live[]) => xs.map((x) => ms(x.p99)).join(', ');
  console.log(
    `Live delivery to ${LIVE} sockets, ${l.topology}: ${PROBES} earthquake reports ${PROBE_GAP_MS} ms apart, commit → arrival:`,
  );
  console.log(`  beside a burst of ${BURST} × ${SUBS}: p99 ${p99s(l.burst)}`);
  console.log(`  alone (reference):       p99 ${p99s(l.alone)}`);
  console.log(`  median ratio of the pairs' p99: ${liveRatio(l).toFixed(2)}×`);
}

// 4. A receiver that never answers, with a backlog: STALLED subscriptions of one account on a host
// of their own, to earthquake reports and early warnings, 40 reports queued to them; then the early
// warnings again, to them and to the live subscriptions.
let stalledEew: Spread | null = null;
if (STALLED > 0) {
  const account = await createAccount(ctx.db, {
    email: `stalled-${Date.now()}@example.test`,
    password: 'password-1',
  });
  for (const c of ['eew.forecast', 'eew.warning', 'telegram.earthquake'])
    await addContract(ctx.db, account.id, c);
  for (let j = 0; j < STALLED; j++) {
    const created = await createSubscription(
      ctx.db,
      box,
      account.id,
      {
        ...subscriptionSpec(stalledUrl),
        classifications: ['telegram.earthquake', 'eew.forecast', 'eew.warning'],
      },
      new URL(stalledUrl).hostname,
    );
    if (!created.ok) throw new Error(created.reason);
  }
  for (let i = 0; i < 40; i++) await ingest(QUAKE);
  await arrivals(MAX_ATTEMPTS_PER_HOST, 'stalled');
  stalledEew = (await eewRounds()).ours;
  console.log(`EEW to the same ${SUBS} subscriptions beside ${STALLED} stalled ones holding a backlog:`);
  console.log(
    `  namazu     p50 ${ms(stalledEew.p50)}  p99 ${ms(stalledEew.p99)}   (alone: p50 ${ms(eew.p50)}  p99 ${ms(eew.p99)})`,
  );
}
emitResult('webhooks', {
  engine: ctx.db.engine,
  deliveringNice: NICE,
  receiversNice: RECEIVERS_NICE ?? null,
  subscriptions: SUBS,
  eewP50Ms: eew.p50,
  eewP50Ratio: eew.p50 / ref.p50,
  eewP99Ms: eew.p99,
  referenceP50Ms: ref.p50,
  referenceP99Ms: ref.p99,
  burstRequests: SUBS * BURST,
  burstSeconds: burstMs / 1000,
  burstStallMs: stall,
  referenceSeconds: refMs / 1000,
  referenceStallMs: refDelay.max / 1e6,
  hosts: HOSTS,
  besideStalledP50Ms: stalledEew?.p50 ?? null,
  besideStalledP99Ms: stalledEew?.p99 ?? null,
  liveSockets: LIVE,
  live: liveFigures.map((l) => ({
    topology: l.topology,
    besideBurstP99Ms: median(l.burst.map((x) => x.p99)),
    aloneP99Ms: median(l.alone.map((x) => x.p99)),
    ratio: liveRatio(l),
  })),
});
await deliveringNode?.stop();
await bench.close();
agent.destroy();
receivers.stop();
