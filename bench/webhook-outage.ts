// Webhook delivery through a receiver's outage: the receiver goes down for `down-minutes`, telegrams
// keep coming meanwhile (one every `every-seconds`, alternately an early warning and an earthquake
// report, to every subscription), then it comes back up on the same addresses and port. Measures
// that every delivery arrives, none twice under the same `webhook-id`, every signature verifies;
// the attempts the server made (its delivery rows); the time from the receiver's return to the
// first and the last arrival, and the p50/p99 of (arrival − up).
//
//   node --import tsx bench/webhook-outage.ts [--down-minutes 10] [--subscriptions 100] [--every-seconds 20]
//                                             [--hosts 5] [--drain-minutes 70]
//
// The server runs in this process on a fresh embedded database (or on PostgreSQL with
// NAMAZU_BENCH_DATABASE_URL, in a database created for the run and dropped after it); the receiver
// in a child process (bench/webhook-receiver.ts), on `hosts` loopback addresses, 20 subscriptions
// (an account's cap) to a host. Down, the receiver listens nowhere and has destroyed its open
// connections: every attempt meets connection refused. It verifies each POST with the
// `standardwebhooks` package against the subscription's secret (returned once at its creation) and
// records its arrival and `webhook-id`. Before the outage one early warning goes to every
// subscription with the receiver up: its commit → arrival is the reference (a receiver never down
// gets its telegrams at once). The wait after the return is bounded by `drain-minutes`; the exit
// status is 1 if anything is missing or duplicated or a signature failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAccount } from '../src/accounts/accounts.ts';
import { addContract } from '../src/accounts/contracts.ts';
import { SecretBox } from '../src/security/sealed.ts';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { messageIdOf } from '../src/webhooks/deliveries.ts';
import { WEBHOOK_SECRET_PURPOSE } from '../src/webhooks/service.ts';
import { createSubscription } from '../src/webhooks/subscriptions.ts';
import { webhookSpec } from '../test/support/webhook-spec.ts';
import { startBenchServer } from './in-process-server.ts';
import { emitResult } from './result.ts';
import type { SignedArrival } from './webhook-receiver.ts';
import { startReceivers } from './webhook-receivers.ts';
import { percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    'down-minutes': { type: 'string', default: '10' },
    subscriptions: { type: 'string', default: '100' },
    'every-seconds': { type: 'string', default: '20' },
    hosts: { type: 'string', default: '5' },
    'drain-minutes': { type: 'string', default: '70' },
  },
});
const DOWN_MS = Number(values['down-minutes']) * 60_000;
const SUBS = Number(values.subscriptions);
const EVERY_MS = Number(values['every-seconds']) * 1000;
const HOSTS = Number(values.hosts);
const DRAIN_MS = Number(values['drain-minutes']) * 60_000;
const PROGRESS_MS = 30_000;
const FIXTURES =
  process.env.NAMAZU_FIXTURES ?? fileURLToPath(new URL('../../shared/fixtures', import.meta.url));
const EEW = readFileSync(join(FIXTURES, 'jma-xml/jma-official-samples/77_01_03_240613_VXSE45.xml'));
const QUAKE = readFileSync(join(FIXTURES, 'jma-xml/jma-official-samples/32-35_01_03_100514_VXSE53.xml'));
const CLASSIFICATIONS = ['eew.forecast', 'eew.warning', 'telegram.earthquake'];
const now = () => performance.timeOrigin + performance.now();
const seconds = (x: number) => `${(x / 1000).toFixed(1)} s`;
const ms = (x: number) => `${x.toFixed(1)} ms`;
const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - now())));

const receivers = await startReceivers(HOSTS);
const { port, ask } = receivers;

const SECRET = 'bench-secret-0123456789abcdef0123456789';
const bench = await startBenchServer('namazu-bench-outage', SECRET, { webhookAllowPrivate: true }, false);
const { server } = bench;
const { ctx } = server;
const box = new SecretBox(ctx.pepper, WEBHOOK_SECRET_PURPOSE);

/** Subscription i posts to /signed/i on its account's host; its secret is secrets[i]. */
const subscriptionIds: number[] = [];
const secrets: string[] = [];
for (let i = 0; i < SUBS; i += 20) {
  const account = await createAccount(ctx.db, {
    email: `outage${i}-${Date.now()}@example.test`,
    password: 'password-1',
  });
  for (const c of CLASSIFICATIONS) await addContract(ctx.db, account.id, c);
  for (let j = i; j < Math.min(SUBS, i + 20); j++) {
    const url = `http://127.0.0.${1 + (Math.floor(j / 20) % HOSTS)}:${port}/signed/${j}`;
    const created = await createSubscription(
      ctx.db,
      box,
      account.id,
      webhookSpec(url, { classifications: CLASSIFICATIONS }),
      new URL(url).hostname,
    );
    if (!created.ok) throw new Error(created.reason);
    subscriptionIds.push(created.subscription.id);
    secrets.push(created.secret);
  }
}
await ask({ secrets }, 'secrets');

/** Every signed arrival so far, and the first arrival of each `webhook-id`. */
const arrived: SignedArrival[] = [];
const firstArrival = new Map<string, number>();
async function collect(): Promise<void> {
  for (const a of await ask<SignedArrival[]>({ collect: true }, 'signed')) {
    arrived.push(a);
    if (!firstArrival.has(a.id)) firstArrival.set(a.id, a.at);
  }
}
const arrivedOf = (ids: string[]) => ids.filter((id) => firstArrival.has(id)).length;

let made = 0;
/** Ingests a telegram made unique; its serial and commit time. */
async function ingest(xml: Buffer): Promise<{ serial: number; committed: number }> {
  const raw = Buffer.concat([xml, Buffer.from(`\n<!-- outage bench ${++made} ${Date.now()} -->\n`)]);
  const out = await ingestTelegram(ctx, raw, { fileName: 'bench.xml', receivedTime: Date.now() });
  if (!out.ok) throw new Error(out.reason);
  return { serial: out.stored.serial, committed: now() };
}
const idsOf = (serials: number[]) =>
  serials.flatMap((serial) => subscriptionIds.map((sub) => messageIdOf(sub, serial)));

interface RowCounts {
  pending: number;
  delivered: number;
  failed: number;
  attempts: number;
  maxAttempts: number;
}
/** The delivery rows of the telegrams after `serial`: counts by state and the attempts made. */
async function rowCounts(afterSerial: number): Promise<RowCounts> {
  const rows = await ctx.db.query<{ state: string; n: number; attempts: number; max: number }>(
    `SELECT state, count(*)::int AS n, sum(attempts)::int AS attempts, max(attempts)::int AS max
     FROM webhook_deliveries WHERE serial > $1 GROUP BY state`,
    [afterSerial],
  );
  const n = (state: string) => rows.find((r) => r.state === state)?.n ?? 0;
  return {
    pending: n('pending'),
    delivered: n('delivered'),
    failed: n('failed'),
    attempts: rows.reduce((sum, r) => sum + r.attempts, 0),
    maxAttempts: Math.max(0, ...rows.map((r) => r.max)),
  };
}

/** Polls (collecting arrivals) until `done` or `deadline`; a progress line every 30 s. */
async function waitUntil(done: () => Promise<boolean>, deadline: number, progress: () => Promise<string>) {
  let nextProgress = now() + PROGRESS_MS;
  for (;;) {
    await collect();
    if (await done()) return true;
    if (now() > deadline) return false;
    if (now() >= nextProgress) {
      console.log(`  ${await progress()}`);
      nextProgress += PROGRESS_MS;
    }
    await sleepUntil(now() + 1000);
  }
}

// 1. The receiver up: one early warning to every subscription, all delivered (the reference).
const sanity = await ingest(EEW);
const sanityIds = idsOf([sanity.serial]);
const sanityDone = await waitUntil(
  async () => arrivedOf(sanityIds) === SUBS && (await rowCounts(sanity.serial - 1)).delivered === SUBS,
  now() + 60_000,
  async () => `sanity: ${arrivedOf(sanityIds)}/${SUBS} arrived`,
);
if (!sanityDone) throw new Error(`the receiver up: ${arrivedOf(sanityIds)} of ${SUBS} arrived in 60 s`);
const sanityLatency = sanityIds.map((id) => firstArrival.get(id)! - sanity.committed);
console.log(`Receiver up: an EEW to ${SUBS} subscriptions on ${Math.min(HOSTS, Math.ceil(SUBS / 20))} hosts`);
console.log(
  `  commit → arrival p50 ${ms(percentile(sanityLatency, 50))}  p99 ${ms(percentile(sanityLatency, 99))}  last ${ms(Math.max(...sanityLatency))}`,
);

// 2. Down; a telegram every EVERY_MS, alternately an early warning and an earthquake report.
const downAt = await ask<number>({ down: true }, 'down');
const arrivedBeforeDown = arrived.length;
const serials: number[] = [];
console.log(`Receiver down for ${seconds(DOWN_MS)}, a telegram every ${seconds(EVERY_MS)}:`);
let nextProgress = downAt + PROGRESS_MS;
for (let at = downAt; at < downAt + DOWN_MS; at += EVERY_MS) {
  await sleepUntil(at);
  serials.push((await ingest(serials.length % 2 === 0 ? QUAKE : EEW)).serial);
  if (now() >= nextProgress) {
    const rows = await rowCounts(sanity.serial);
    console.log(
      `  ${seconds(now() - downAt)}: ${serials.length} telegrams, ${rows.pending} deliveries pending, ${rows.attempts} attempts made`,
    );
    nextProgress += PROGRESS_MS;
  }
}
await sleepUntil(downAt + DOWN_MS);
await collect();
const arrivedWhileDown = arrived.length - arrivedBeforeDown;
const atUp = await rowCounts(sanity.serial);

// 3. Up: nothing more ingested; wait until every delivery has arrived and none is pending.
const upAt = await ask<number>({ up: true }, 'up');
const expectedIds = idsOf(serials);
console.log(
  `Receiver up again (${atUp.attempts} attempts made while down, ${atUp.pending} deliveries pending); waiting up to ${seconds(DRAIN_MS)}:`,
);
const drained = await waitUntil(
  async () => arrivedOf(expectedIds) === expectedIds.length && (await rowCounts(sanity.serial)).pending === 0,
  upAt + DRAIN_MS,
  async () => {
    const rows = await rowCounts(sanity.serial);
    return `${seconds(now() - upAt)} after up: ${arrivedOf(expectedIds)}/${expectedIds.length} arrived, ${rows.pending} pending, ${rows.attempts} attempts`;
  },
);
const drainedAt = now();

// 4. The figures.
const expected = new Set([...sanityIds, ...expectedIds]);
const rows = await rowCounts(sanity.serial);
const missing = expectedIds.filter((id) => !firstArrival.has(id));
const counts = new Map<string, number>();
for (const a of arrived) counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
const duplicates = [...counts].filter(([, n]) => n > 1);
const repeats = duplicates.reduce((sum, [, n]) => sum + n - 1, 0);
const unexpected = [...counts.keys()].filter((id) => !expected.has(id));
const signatureFailures = arrived.filter((a) => !a.verified).length;
const sinceUp = expectedIds.flatMap((id) => (firstArrival.has(id) ? [firstArrival.get(id)! - upAt] : []));
const first = sinceUp.length ? Math.min(...sinceUp) : NaN;
const last = sinceUp.length ? Math.max(...sinceUp) : NaN;
console.log(
  `${serials.length} telegrams × ${SUBS} subscriptions while down; ${drained ? `all arrived and none pending ${seconds(drainedAt - upAt)} after up` : `NOT drained within ${seconds(DRAIN_MS)}`}:`,
);
console.log(
  `  deliveries expected ${expectedIds.length}, arrived (distinct webhook-ids) ${arrivedOf(expectedIds)}`,
);
console.log(
  `  missing ${missing.length}${missing.length ? ` (e.g. ${missing.slice(0, 5).join(', ')})` : ''}`,
);
console.log(
  `  arrivals with a webhook-id already seen ${repeats}${
    duplicates.length
      ? ` (${duplicates.length} ids, e.g. ${duplicates
          .slice(0, 5)
          .map(([id, n]) => `${id} ×${n}`)
          .join(', ')})`
      : ''
  }`,
);
console.log(
  `  signature failures ${signatureFailures}, unexpected webhook-ids ${unexpected.length}, arrivals while down ${arrivedWhileDown}`,
);
console.log(
  `  server's rows: ${rows.delivered} delivered, ${rows.pending} pending, ${rows.failed} failed; ${rows.attempts} attempts (${atUp.attempts} while down, ${rows.attempts - atUp.attempts} after), at most ${rows.maxAttempts} for one delivery`,
);
console.log(`  up → first arrival ${seconds(first)}, up → last arrival ${seconds(last)}`);
console.log(
  `  arrival − up p50 ${seconds(percentile(sinceUp, 50))}  p99 ${seconds(percentile(sinceUp, 99))}   (reference, the receiver never down: commit → arrival p50 ${ms(percentile(sanityLatency, 50))}  p99 ${ms(percentile(sanityLatency, 99))})`,
);
emitResult('webhook-outage', {
  engine: ctx.db.engine,
  subscriptions: SUBS,
  downMinutes: DOWN_MS / 60_000,
  telegrams: serials.length,
  expected: expectedIds.length,
  arrived: arrivedOf(expectedIds),
  missing: missing.length,
  duplicates: repeats,
  signatureFailures,
  attempts: rows.attempts,
  attemptsWhileDown: atUp.attempts,
  delivered: rows.delivered,
  pending: rows.pending,
  failed: rows.failed,
  upToFirstSeconds: first / 1000,
  upToLastSeconds: last / 1000,
  sinceUpP50Seconds: percentile(sinceUp, 50) / 1000,
  sinceUpP99Seconds: percentile(sinceUp, 99) / 1000,
  referenceP50Ms: percentile(sanityLatency, 50),
  referenceP99Ms: percentile(sanityLatency, 99),
});
await bench.close();
receivers.stop();
if (missing.length > 0 || repeats > 0 || signatureFailures > 0 || unexpected.length > 0) process.exitCode = 1;
