// What anonymous catch-ups of the public stream cost the serving process (docs/realtime.md "Public
// streams", docs/operations.md "Public streams"): the server runs in this process (PGlite, or
// PostgreSQL with NAMAZU_TEST_DATABASE_URL), its clients in another (bench/public-catch-up-clients.ts).
//
//   node --import tsx bench/public-catch-up.ts [--clients 1,50,200] [--probes-every 100]
//
// The public classification is telegram.earthquake. Before each catch-up phase, NAMAZU_PUBLIC_RESUME_MAX_TELEGRAMS
// (1,000) serials of JMA's VXSE53 earthquake reports (the real fixtures in turn, 4 KiB to 388 KiB,
// each stored with its JSON conversion, a comment making each distinct) are ingested, so that the
// longest catch-up an anonymous client can ask for is made of them, and the telegram cache (64 MiB)
// holds them. Then, for each N:
// - reference: a small earthquake telegram (VXSE51) ingested every `probes-every` ms, to one live
//   reader of the public WebSocket; nothing else under way.
// - catch-up: N anonymous streams ask at once for the most they may (`Last-Event-ID` = the first
//   telegram ever stored) and read it to its end, the live probes going on beside them.
// - held: N such streams that never read (a botnet's clients that only hold their catch-up open),
//   for `hold` seconds, the probes going on.
// Figures of each phase: the longest stall of this process's event loop (monitorEventLoopDelay, 1 ms
// resolution), its peak RSS and external memory above the phase's start (sampled every 20 ms),
// the live probes' latency (ingest call's return → arrival at the live reader, and scheduled time →
// arrival), and for the catch-up the time until the N had their last telegram and the bytes each read.
// Every client reaches the process from 127.0.0.1: the per-address cap and rate are raised so
// that the N stand for as many addresses.
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { fixture, jmaXmlRoot } from '../test/support/fixtures.ts';
import { startTestServer } from '../test/support/server.ts';
import { emitResult } from './result.ts';
import { percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1,50,200' },
    'probes-every': { type: 'string', default: '100' },
    'reference-probes': { type: 'string', default: '30' },
    hold: { type: 'string', default: '5' },
  },
});
const sizes = values.clients.split(',').map(Number);
const probeEveryMs = Number(values['probes-every']);
const referenceProbes = Number(values['reference-probes']);
const holdMs = Number(values.hold) * 1000;

const CLIENTS = fileURLToPath(new URL('./public-catch-up-clients.ts', import.meta.url));
const PUBLIC = 'telegram.earthquake';
const MiB = 1024 * 1024;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const f1 = (x: number) => x.toFixed(1);

/**
 * Every VXSE53 fixture, smallest first: the reports a large earthquake brings, some of hundreds of
 * KiB. Not the training ones: a public stream leaves test telegrams out unless asked.
 */
const REPORTS = readdirSync(jmaXmlRoot, { recursive: true, encoding: 'utf8' })
  .filter((p) => p.endsWith('.xml') && p.includes('VXSE53'))
  .map((p) => ({ name: p.split('/').pop()!, raw: readFileSync(join(jmaXmlRoot, p)) }))
  .filter((t) => t.raw.includes('<Status>通常</Status>'))
  .sort((a, b) => a.raw.length - b.raw.length);
const PROBE = {
  name: '32-35_04_01_100831_VXSE51.xml',
  raw: readFileSync(fixture('official', '32-35_04_01_100831_VXSE51.xml')),
};

const server = await startTestServer({
  config: {
    publicClassifications: [PUBLIC],
    publicMaxPerAddress: 1_000_000,
    publicConnectsPerMinute: 1_000_000,
  },
});
const { ctx } = server;
const maxBehind = Math.min(ctx.config.publicResumeMaxTelegrams, ctx.config.resumeMaxTelegrams);
const db = process.env.NAMAZU_TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

let variant = 0;
async function ingest(t: {
  name: string;
  raw: Buffer;
}): Promise<{ id: string; serial: number; returned: number }> {
  const raw = Buffer.concat([t.raw, Buffer.from(`\n<!-- public catch-up bench ${++variant} -->\n`)]);
  const out = await ingestTelegram(ctx, raw, { fileName: t.name, receivedTime: Date.now() });
  if (!out.ok) throw new Error(`ingest of ${t.name} failed`);
  return { id: out.stored.id, serial: out.stored.serial, returned: now() };
}

/** Ingests reports until the newest `maxBehind` serials are all theirs; their XML's size in all. */
async function fill(): Promise<{ xmlBytes: number; newest: string }> {
  const start = ctx.telegrams.newestSerial;
  let xmlBytes = 0;
  let newest = '';
  for (let i = 0; ctx.telegrams.newestSerial - start < maxBehind; i++) {
    const report = REPORTS[i % REPORTS.length]!;
    xmlBytes += report.raw.length;
    newest = (await ingest(report)).id;
  }
  return { xmlBytes, newest };
}

// The clients' process and its messages.
const clients = fork(CLIENTS, [], { execArgv: ['--import', 'tsx'] });
const waiting = new Map<string, (m: Record<string, unknown>) => void>();
const arrivals = new Map<string, number>();
clients.on('message', (m: Record<string, unknown>) => {
  if (m.type === 'arrival') return void arrivals.set(String(m.id), Number(m.at));
  if (m.type === 'error') console.error('client:', m);
  const waiter = waiting.get(String(m.type));
  waiting.delete(String(m.type));
  waiter?.(m);
});
const next = <T = Record<string, unknown>>(type: string) =>
  new Promise<T>((resolve) => waiting.set(type, resolve as (m: Record<string, unknown>) => void));
await next('ready');
const wsUrl = `${server.url.replace('http', 'ws')}/v2/public/websocket?classifications=${PUBLIC}`;
const streamUrl = `${server.url}/v2/public/stream?classifications=${PUBLIC}`;
const liveOpen = next('live-open');
clients.send({ type: 'live', url: wsUrl });
await liveOpen;
const oldest = (await ingest(PROBE)).id;

interface Phase {
  stallMs: number;
  rssMiB: number;
  externalMiB: number;
  probes: { fromReturn: number[]; fromSchedule: number[]; lost: number };
}

/**
 * Runs `during` while probes are ingested every `probeEveryMs` (at least `minProbes` of them, and
 * until `during` settles), measuring the event loop, the memory and the probes' latency.
 */
async function phase<T>(minProbes: number, during: () => Promise<T>): Promise<Phase & { result: T }> {
  globalThis.gc?.();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakExternal = base.external;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakExternal = Math.max(peakExternal, m.external);
  }, 20);
  loop.enable();
  let settled = false;
  const work = during().finally(() => (settled = true));
  const sent: { id: string; scheduled: number; returned: number }[] = [];
  const t0 = now();
  for (let k = 0; k < minProbes || !settled; k++) {
    const scheduled = t0 + k * probeEveryMs;
    await sleep(Math.max(0, scheduled - now()));
    const { id, returned } = await ingest(PROBE);
    sent.push({ id, scheduled, returned });
  }
  const result = await work;
  await sleep(500);
  loop.disable();
  clearInterval(sampler);
  const fromReturn: number[] = [];
  const fromSchedule: number[] = [];
  let lost = 0;
  for (const p of sent) {
    const at = arrivals.get(p.id);
    if (at === undefined) lost++;
    else {
      fromReturn.push(at - p.returned);
      fromSchedule.push(at - p.scheduled);
    }
  }
  return {
    result,
    stallMs: loop.max / 1e6,
    rssMiB: (peakRss - base.rss) / MiB,
    externalMiB: (peakExternal - base.external) / MiB,
    probes: { fromReturn, fromSchedule, lost },
  };
}

const probeLine = (p: Phase['probes']) =>
  `probe return → arrival p50 ${f1(percentile(p.fromReturn, 50))} · p99 ${f1(percentile(p.fromReturn, 99))} · max ${f1(Math.max(...p.fromReturn))} ms; ` +
  `scheduled → arrival max ${f1(Math.max(...p.fromSchedule))} ms; ${p.fromReturn.length} probes, ${p.lost} lost`;
const phaseLine = (p: Phase) =>
  `loop stall max ${f1(p.stallMs)} ms · RSS +${f1(p.rssMiB)} MiB · external +${f1(p.externalMiB)} MiB\n    ${probeLine(p.probes)}`;

console.log(
  `Public catch-ups (${db}), at most ${maxBehind} serials each; probes every ${probeEveryMs} ms; load ${loadavg()[0]!.toFixed(1)}`,
);
for (const n of sizes) {
  const filled = await fill();
  console.log(
    `\nN=${n}: window refilled, ${maxBehind} serials (${f1(filled.xmlBytes / MiB)} MiB of XML, with the conversions); RSS ${f1(process.memoryUsage().rss / MiB)} MiB`,
  );
  /** The N streams, each asking for the longest catch-up, reading it or not. */
  const askCatchUps = (read: boolean) =>
    clients.send({
      type: 'catch-up',
      url: streamUrl,
      count: n,
      lastEventId: oldest,
      untilId: filled.newest,
      read,
    });
  const reference = await phase(referenceProbes, async () => undefined);
  console.log(`  reference (no catch-up): ${phaseLine(reference)}`);

  const reading = await phase(referenceProbes, async () => {
    const caughtUp = next<{
      started: number;
      done: number[];
      statuses: Record<string, number>;
      bytes: number;
      events: number;
    }>('caught-up');
    askCatchUps(true);
    return caughtUp;
  });
  const r = reading.result;
  const times = r.done.map((t) => t - r.started);
  const cut = times.filter(Number.isNaN).length;
  console.log(
    `  ${n} reading catch-ups: ${phaseLine(reading)}\n    statuses ${JSON.stringify(r.statuses)}; ${r.events / n} events, ${f1(r.bytes / n / MiB)} MiB a client; ` +
      `last telegram reached: p50 ${f1(percentile(times, 50))} · last ${f1(Math.max(...times.filter((t) => !Number.isNaN(t))))} ms; ended short ${cut}`,
  );

  const held = await phase(Math.ceil(holdMs / probeEveryMs), async () => {
    const opened = next<{ statuses: Record<string, number> }>('held');
    askCatchUps(false);
    const answer = await opened;
    await sleep(holdMs);
    const closed = next('closed');
    clients.send({ type: 'close-all' });
    await closed;
    return answer;
  });
  console.log(
    `  ${n} catch-ups held, never read, ${holdMs / 1000} s: ${phaseLine(held)}\n    statuses ${JSON.stringify(held.result.statuses)}`,
  );
  await sleep(1000);

  const ratio = (p: Phase) =>
    percentile(p.probes.fromReturn, 99) / percentile(reference.probes.fromReturn, 99);
  emitResult('public-catch-up', {
    db,
    clients: n,
    reference: { stallMs: reference.stallMs, p99: percentile(reference.probes.fromReturn, 99) },
    reading: {
      stallMs: reading.stallMs,
      rssMiB: reading.rssMiB,
      p99: percentile(reading.probes.fromReturn, 99),
      p99Ratio: ratio(reading),
      lastMs: Math.max(...times),
      mibPerClient: r.bytes / n / MiB,
    },
    held: {
      stallMs: held.stallMs,
      rssMiB: held.rssMiB,
      p99: percentile(held.probes.fromReturn, 99),
      p99Ratio: ratio(held),
    },
  });
}

clients.send({ type: 'quit' });
await server.close();
process.exit(0);
