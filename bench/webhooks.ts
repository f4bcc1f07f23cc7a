// Webhook delivery: commit → first attempt for an early warning to 1,000 subscriptions, and a burst of
// 100 telegrams to 1,000 subscriptions (10^5 requests) with the event loop's longest stall.
//
//   node --import tsx bench/webhooks.ts [--subscriptions 1000] [--rounds 5] [--burst 100]
//
// The server runs in this process on a fresh embedded database (or on PostgreSQL with
// NAMAZU_BENCH_DATABASE_URL, a database that may be emptied); the receiver in a child process
// (bench/webhook-receiver.ts) answers 204 at once. Latency = arrival at the receiver − the return of
// the ingest call (its COMMIT). Reference, in the same run: this process posting the same number of
// requests of the same size to the same receiver in a plain loop (Node's http, keep-alive, the same
// concurrency), latency from the loop's start; its event-loop stall over the same 10^5 requests.
import { fork } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAccount } from '../src/accounts/accounts.ts';
import { addContract } from '../src/accounts/contracts.ts';
import { defaults } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startServer } from '../src/server.ts';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { SecretBox } from '../src/security/sealed.ts';
import { WEBHOOK_SECRET_PURPOSE } from '../src/webhooks/service.ts';
import { MAX_ATTEMPTS_PER_HOST } from '../src/webhooks/service.ts';
import { createSubscription } from '../src/webhooks/subscriptions.ts';
import { emitResult } from './result.ts';

const { values } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    burst: { type: 'string', default: '100' },
  },
});
const SUBS = Number(values.subscriptions);
const ROUNDS = Number(values.rounds);
const BURST = Number(values.burst);
const FIXTURES =
  process.env.NAMAZU_FIXTURES ?? fileURLToPath(new URL('../../shared/fixtures', import.meta.url));
const EEW = readFileSync(join(FIXTURES, 'jma-xml/jma-official-samples/77_01_03_240613_VXSE45.xml'));
const now = () => performance.timeOrigin + performance.now();
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const median = (xs: number[]) => quantile(xs, 0.5);
const ms = (x: number) => `${x.toFixed(1)} ms`;

const receiver = fork(fileURLToPath(new URL('./webhook-receiver.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx'],
});
const port = await new Promise<number>((resolve) =>
  receiver.once('message', (m: { port: number }) => resolve(m.port)),
);
const arrivals = (count: number) =>
  new Promise<number[]>((resolve) => {
    receiver.once('message', (m: { arrivals: number[] }) => resolve(m.arrivals));
    receiver.send({ take: count });
  });

const dataDir = mkdtempSync(join(tmpdir(), 'namazu-bench-webhooks-'));
const server = await startServer(
  {
    ...defaults(),
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: process.env.NAMAZU_BENCH_DATABASE_URL || null,
    demo: false,
    logLevel: 'silent',
    webhookAllowPrivate: true,
  },
  { logger: createLogger('silent'), listen: false },
);
const { ctx } = server;
const url = `http://127.0.0.1:${port}/hook`;
const box = new SecretBox(ctx.pepper, WEBHOOK_SECRET_PURPOSE);
// Accounts of 20 subscriptions each (the cap).
for (let i = 0; i < SUBS; i += 20) {
  const account = await createAccount(ctx.db, {
    email: `bench${i}-${Date.now()}@example.test`,
    password: 'password-1',
  });
  for (const c of ['eew.forecast', 'eew.warning', 'telegram.earthquake'])
    await addContract(ctx.db, account.id, c);
  for (let j = i; j < Math.min(SUBS, i + 20); j++) {
    const spec = {
      url,
      classifications: ['eew.forecast', 'eew.warning'],
      types: null,
      test: 'no' as const,
      formatMode: 'raw' as const,
      areas: null,
      minIntensity: null,
      format: 'namazu' as const,
      lang: 'ja' as const,
      token: null,
    };
    const created = await createSubscription(ctx.db, box, account.id, spec, '127.0.0.1');
    if (!created.ok) throw new Error(created.reason);
  }
}

let made = 0;
const telegram = () => Buffer.concat([EEW, Buffer.from(`\n<!-- bench ${++made} ${Date.now()} -->\n`)]);
async function ingest(): Promise<number> {
  const out = await ingestTelegram(ctx, telegram(), { fileName: 'bench.xml', receivedTime: Date.now() });
  if (!out.ok) throw new Error(out.reason);
  return now();
}

/** The reference: the same number of posts of the same body from a plain loop in this process. */
async function reference(count: number, body: Buffer): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_ATTEMPTS_PER_HOST });
  const started = now();
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  await Promise.all(
    Array.from({ length: MAX_ATTEMPTS_PER_HOST }, async () => {
      while (next++ < count) await post();
    }),
  );
  agent.destroy();
  return (await arrivals(count)).map((t) => t - started);
}

// 1. Commit → first attempt, an early warning to every subscription.
const body = Buffer.alloc(3000, 97);
const ours: { p50: number; p99: number }[] = [];
const theirs: { p50: number; p99: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const committed = await ingest();
  const got = (await arrivals(SUBS)).map((t) => t - committed);
  ours.push({ p50: quantile(got, 0.5), p99: quantile(got, 0.99) });
  const ref = await reference(SUBS, body);
  theirs.push({ p50: quantile(ref, 0.5), p99: quantile(ref, 0.99) });
}
const eew = { p50: median(ours.map((o) => o.p50)), p99: median(ours.map((o) => o.p99)) };
const ref = { p50: median(theirs.map((o) => o.p50)), p99: median(theirs.map((o) => o.p99)) };
console.log(`EEW to ${SUBS} subscriptions, commit → arrival (median of ${ROUNDS} rounds):`);
console.log(`  namazu     p50 ${ms(eew.p50)}  p99 ${ms(eew.p99)}`);
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
console.log(`  namazu     ${(burstMs / 1000).toFixed(1)} s, longest event-loop stall ${ms(stall)}`);
console.log(
  `  plain loop ${(refMs / 1000).toFixed(1)} s, longest event-loop stall ${ms(refDelay.max / 1e6)}   (reference)`,
);
emitResult('webhooks', {
  engine: ctx.db.engine,
  subscriptions: SUBS,
  eewP50Ms: eew.p50,
  eewP99Ms: eew.p99,
  referenceP50Ms: ref.p50,
  referenceP99Ms: ref.p99,
  burstRequests: SUBS * BURST,
  burstSeconds: burstMs / 1000,
  burstStallMs: stall,
  referenceSeconds: refMs / 1000,
  referenceStallMs: refDelay.max / 1e6,
});
await server.close();
receiver.disconnect();
rmSync(dataDir, { recursive: true, force: true });
