// Writes bench/REPORT.md and its SVG bar charts (bench/report/*.svg) from the results bench/run.ts
// collected: each figure beside its reference and the target from its issue. What the report's
// kept part holds (runs recorded by hand: benches run alone, medians of several runs, runs of
// code before a change) is carried over from the report it replaces, word for word.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  kernel: string;
  load: { min: number; mean: number; max: number };
  database: string;
}

export interface BenchOutcome {
  name: string;
  title: string;
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  results: Record<string, unknown>[];
  output: string;
  seconds: number;
  /** Mean 1-minute load average while it ran. */
  load?: number;
}

interface Run {
  started: Date;
  finished: Date;
  machine: Machine;
  settings: string;
  outcomes: BenchOutcome[];
}

interface Row {
  figure: string;
  value: string;
  reference: string;
  target: string;
  met: boolean | null;
}

interface Bar {
  label: string;
  value: number;
  reference?: boolean;
}

type R = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number | null | undefined) => (x == null ? '–' : `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A horizontal bar chart: namazu bars in blue, references in grey, the target as a red line. */
function barChart(title: string, unit: string, bars: Bar[], target?: number): string {
  const width = 720;
  const left = 300;
  const row = 24;
  const top = 34;
  const height = top + bars.length * row + 30;
  const max = Math.max(...bars.map((b) => b.value), target ?? 0) * 1.1 || 1;
  const x = (v: number) => left + (v / max) * (width - left - 80);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">${esc(title)}</text>`,
  ];
  bars.forEach((b, i) => {
    const y = top + i * row;
    parts.push(
      `<text x="${left - 8}" y="${y + 15}" text-anchor="end">${esc(b.label)}</text>`,
      `<rect x="${left}" y="${y + 3}" width="${Math.max(1, x(b.value) - left).toFixed(1)}" height="${row - 8}" fill="${b.reference ? '#a0aec0' : '#2b6cb0'}"/>`,
      `<text x="${(x(b.value) + 4).toFixed(1)}" y="${y + 15}">${esc(`${b.value < 10 ? b.value.toFixed(2) : n0(b.value)} ${unit}`)}</text>`,
    );
  });
  if (target !== undefined) {
    const tx = x(target).toFixed(1);
    parts.push(
      `<line x1="${tx}" y1="${top - 4}" x2="${tx}" y2="${top + bars.length * row}" stroke="#c53030" stroke-dasharray="4 3"/>`,
      `<text x="${tx}" y="${top + bars.length * row + 16}" fill="#c53030" text-anchor="middle">target ${esc(n0(target))} ${esc(unit)}</text>`,
    );
  }
  parts.push(
    `<text x="${width - 10}" y="${height - 6}" text-anchor="end" fill="#4a5568">blue: namazu · grey: reference</text>`,
    '</svg>',
  );
  return parts.join('\n') + '\n';
}

function fanout(results: R[], rows: Row[], charts: [string, string][]): void {
  const p50: Bar[] = [];
  const p99: Bar[] = [];
  for (const r of results) {
    const n = n0(r.clients);
    const ratio = r.namazu.lastP50 / r.bare.lastP50;
    rows.push({
      figure: `fan-out: ingest → last of ${n} clients, p50 / p99`,
      value: `${ms(r.namazu.lastP50)} / ${ms(r.namazu.lastP99)}`,
      reference: `bare \`ws\`: ${ms(r.bare.lastP50)} / ${ms(r.bare.lastP99)} (p50 ${ratio.toFixed(2)}×)`,
      target: r.clients > 1 ? 'p50 ≤ 1.0× bare (issue 10)' : '–',
      met: r.clients > 1 ? ratio <= 1 : null,
    });
    rows.push({
      figure: `fan-out: ingest → first of ${n} clients, p50 / p99`,
      value: `${ms(r.namazu.firstP50)} / ${ms(r.namazu.firstP99)}`,
      reference: `bare \`ws\`: ${ms(r.bare.firstP50)} / ${ms(r.bare.firstP99)}`,
      target: 'p50 ≤ 2 ms (issue 10)',
      met: r.namazu.firstP50 <= 2,
    });
    if (r.clients >= 1000) {
      rows.push({
        figure: `fan-out: server memory per idle connection (${n})`,
        value: `${r.rssPerConnectionKiB.toFixed(1)} KiB`,
        reference:
          r.rssPerConnectionAfterStormKiB === undefined
            ? '–'
            : `2 s after connecting: ${r.rssPerConnectionAfterStormKiB.toFixed(1)} KiB`,
        target: '≤ 8 KiB (issue 10)',
        met: r.rssPerConnectionKiB <= 8,
      });
      rows.push({
        figure: `fan-out: server CPU per delivered message (${n})`,
        value: `${r.cpuMicrosecondsPerMessage.toFixed(1)} µs`,
        reference: '–',
        target: '–',
        met: null,
      });
    }
    p50.push(
      { label: `namazu, ${n} clients`, value: r.namazu.lastP50 },
      { label: `bare ws, ${n}`, value: r.bare.lastP50, reference: true },
    );
    p99.push(
      { label: `namazu, ${n} clients`, value: r.namazu.lastP99 },
      { label: `bare ws, ${n}`, value: r.bare.lastP99, reference: true },
    );
  }
  charts.push(['fanout-last-p50.svg', barChart('Ingest → last client, p50 (lower is better)', 'ms', p50)]);
  charts.push(['fanout-last-p99.svg', barChart('Ingest → last client, p99 (lower is better)', 'ms', p99)]);
}

/** Medians over the runs of each size (several runs of `bench/scale.sh --runs N`). */
function scaleMedians(results: R[]): R[] {
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const mid = (s.length - 1) / 2;
    return (s[Math.floor(mid)]! + s[Math.ceil(mid)]!) / 2;
  };
  // One row per size and bus.
  const keys = [...new Set(results.map((r) => `${r.clients} ${r.bus}`))].sort(
    (a, b) => parseInt(a) - parseInt(b) || a.localeCompare(b),
  );
  return keys.map((key) => {
    const runs = results.filter((r) => `${r.clients} ${r.bus}` === key);
    const clients = runs[0]!.clients as number;
    const m = (get: (r: R) => number) => med(runs.map(get));
    const faults = runs.filter((r) => r.fault);
    const bareFaults = runs.filter((r) => r.bareFault);
    const one = runs[0]!;
    return {
      clients,
      runs: runs.length,
      nodes: one.nodes,
      workersPerNode: one.workersPerNode,
      bus: one.bus,
      lastMs: m((r) => r.namazu.lastMs),
      medianMs: m((r) => r.namazu.medianMs),
      firstMs: m((r) => r.namazu.firstMs),
      bareLastMs: m((r) => r.bare.lastMs),
      bareMedianMs: m((r) => r.bare.medianMs),
      rss: m((r) => r.rssPerConnectionKiB),
      bareRss: m((r) => r.bareRssPerConnectionKiB),
      cpu: m((r) => r.cpuMicrosecondsPerMessage),
      bareCpu: m((r) => r.bareCpuMicrosecondsPerMessage),
      connectsPerSecond: m((r) => r.connectsPerSecond),
      bareConnectsPerSecond: m((r) => r.clients / r.bareConnectSeconds),
      stormCpuMs: m((r) => r.stormCpuMsPerConnection),
      lost: runs.reduce((n, r) => n + r.namazu.lost + (r.fault?.lost ?? 0), 0),
      duplicated: runs.reduce((n, r) => n + r.namazu.duplicated + (r.fault?.duplicated ?? 0), 0),
      recoveryP99: faults.length ? med(faults.map((r) => r.fault.recoveryP99Ms)) : null,
      rejoinP99: faults.length ? med(faults.map((r) => r.fault.rejoinP99Ms)) : null,
      bareRejoinP99: bareFaults.length ? med(bareFaults.map((r) => r.bareFault.rejoinP99Ms)) : null,
      faultRuns: faults.length,
    };
  });
}

/** Issue 43: last of N ≤ 1.0× the bare topology, RSS ≤ 8 KiB, 0 lost or duplicated, recovery p99 ≤ 10 s. */
function scale(results: R[], rows: Row[], charts: [string, string][]): void {
  const last: Bar[] = [];
  const memory: Bar[] = [];
  for (const s of scaleMedians(results)) {
    const n = `${n0(s.clients)}${s.bus === 'postgres' ? '' : ` (${s.bus} bus)`}`;
    const where = `${s.nodes} nodes × ${s.workersPerNode} workers, ${s.bus} bus, median of ${s.runs}`;
    const ratio = s.lastMs / s.bareLastMs;
    rows.push({
      figure: `scale: ingest → median / last client, ${n} clients (${where})`,
      value: `${ms(s.medianMs)} / ${ms(s.lastMs)}`,
      reference: `bare \`ws\` nodes: ${ms(s.bareMedianMs)} / ${ms(s.bareLastMs)} (last ${ratio.toFixed(2)}×)`,
      target: 'last ≤ 1.0× bare (issue 43)',
      met: ratio <= 1,
    });
    rows.push({
      figure: `scale: server RSS per connection (${n})`,
      value: `${s.rss.toFixed(1)} KiB`,
      reference: `bare \`ws\`: ${s.bareRss.toFixed(1)} KiB`,
      target: '≤ 8 KiB (issue 43)',
      met: s.rss <= 8,
    });
    rows.push({
      figure: `scale: server CPU per delivered message · connects per second (${n})`,
      value: `${s.cpu.toFixed(1)} µs · ${n0(s.connectsPerSecond)}/s (${s.stormCpuMs.toFixed(2)} ms CPU each)`,
      reference: `bare \`ws\`: ${s.bareCpu.toFixed(1)} µs · ${n0(s.bareConnectsPerSecond)}/s`,
      target: '–',
      met: null,
    });
    rows.push({
      figure: `scale: telegrams lost · duplicated over every client (${n}, every run, the node kill included)`,
      value: `${s.lost} · ${s.duplicated}`,
      reference: '–',
      target: '0 · 0 (issue 43)',
      met: s.lost === 0 && s.duplicated === 0,
    });
    if (s.recoveryP99 !== null)
      rows.push({
        figure: `scale: a node killed mid-burst, its clients' drop → next telegram p99 · drop → socket back p99 (${n}, median of ${s.faultRuns})`,
        value: `${ms(s.recoveryP99)} · ${ms(s.rejoinP99)}`,
        reference:
          s.bareRejoinP99 === null
            ? '–'
            : `bare \`ws\` nodes, a node killed: drop → socket back p99 ${ms(s.bareRejoinP99)}`,
        target: '≤ 10 s (issue 43)',
        met: s.recoveryP99 <= 10_000,
      });
    last.push(
      { label: `namazu, ${n} clients`, value: s.lastMs },
      { label: `bare ws nodes, ${n}`, value: s.bareLastMs, reference: true },
    );
    memory.push(
      { label: `namazu, ${n} clients`, value: s.rss },
      { label: `bare ws nodes, ${n}`, value: s.bareRss, reference: true },
    );
  }
  charts.push([
    'scale-last.svg',
    barChart('4 nodes: ingest → last client, median (lower is better)', 'ms', last),
  ]);
  charts.push(['scale-memory.svg', barChart('4 nodes: server RSS per connection', 'KiB', memory, 8)]);
}

/** The topology of bench/scale.ts, drawn for the report. */
export const SCALE_TOPOLOGY = [
  '```mermaid',
  'flowchart LR',
  '  B[bench process: ingest of EEWs] -->|INSERT + NOTIFY| PG[(PostgreSQL + bus)]',
  '  PG -->|LISTEN, one notice per telegram per worker| N1[node 1: namazu serve --workers W]',
  '  PG --> N2[node 2] & N3[node 3] & N4[node 4]',
  '  C[client processes ≤ 12,500 sockets each, 200 source addresses each] -->|1 in 10: POST /v2/socket + ticket; others: /v2/public/websocket| N1 & N2 & N3 & N4',
  '  B -. reference: publish k .-> PG',
  '  PG -.-> R[4 bare ws nodes × W processes: write frame k to every socket] -.-> C',
  '```',
  '',
  'Reference in the same run: the same client processes on 4 nodes of bare `ws` processes (bench/scale-bare.ts), ' +
    'subscribed to the same bus, writing the very `data` frames Namazu delivered, in the same order and rhythm. ' +
    'A fault phase kills one Namazu node (SIGKILL to its process group) after the 3rd EEW of a burst: its ' +
    'clients reconnect to the next node after a random 0–2 s with `after` = their last telegram id.',
].join('\n');

/** The scale rows and charts, for a section of their own (bench/REPORT.md "Scale"). */
export function scaleSection(results: Record<string, unknown>[]): {
  markdown: string;
  charts: [string, string][];
} {
  const rows: Row[] = [];
  const charts: [string, string][] = [];
  scale(results as R[], rows, charts);
  const markdown = [
    SCALE_TOPOLOGY,
    '',
    '| figure | namazu | reference | target | met |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.figure} | ${r.value} | ${r.reference} | ${r.target} | ${r.met === null ? '–' : r.met ? 'yes' : '**no**'} |`,
    ),
    '',
    ...charts.map(([c]) => `![${c}](report/${c})\n`),
  ].join('\n');
  return { markdown, charts };
}

/** Issue 23: pages read through a cursor from the database ≥ 0.5× bare; the others ≥ 0.8×. */
const listShare = (r: R) => (String(r.case).includes('nextToken') ? 0.5 : 0.8);

function telegramList(results: R[], rows: Row[], charts: [string, string][]): void {
  const bare = results.find((r) => r.reference);
  for (const r of results.filter((x) => !x.reference)) {
    const share = bare ? r.perSecond / bare.perSecond : null;
    rows.push({
      figure: `${r.case} (${n0(r.telegrams)} telegrams), median of ${r.rounds ?? 1} rounds, req/s · p50 · p99`,
      value: `${n0(r.perSecond)} · ${ms(r.p50)} · ${ms(r.p99)}`,
      reference: bare
        ? `bare Fastify: ${n0(bare.perSecond)} · ${ms(bare.p50)} · ${ms(bare.p99)} (${share!.toFixed(2)}×)`
        : '–',
      target: `≥ ${listShare(r)}× bare req/s, p99 ≤ 25 ms (issue 23)`,
      met: share === null ? null : share >= listShare(r) && r.p99 <= 25,
    });
  }
  const bars = results.map((r) => ({
    label: r.reference ? 'bare Fastify' : String(r.case).replace('Namazu ', ''),
    value: r.perSecond,
    reference: r.reference,
  }));
  charts.push([
    'telegram-list.svg',
    barChart(
      'GET /v2/telegram?limit=20, 100 connections (req/s, higher is better)',
      'req/s',
      bars,
      bare ? bare.perSecond / 2 : undefined,
    ),
  ]);
}

function token(all: R[], rows: Row[], charts: [string, string][]): void {
  const reference = all.find((r) => r.case === 'node-oidc-provider reference');
  const results = all.filter((r) => r !== reference);
  for (const r of results) {
    const dpop = String(r.case).includes('DPoP');
    const share = reference ? r.perSecond / reference.perSecond : null;
    rows.push({
      figure: `token endpoint: ${r.case} (${r.engine}), req/s · p50 · p99`,
      value: `${n0(r.perSecond)} · ${ms(r.p50)} · ${ms(r.p99)}`,
      reference:
        !dpop && reference
          ? `node-oidc-provider in memory: ${n0(reference.perSecond)} · ${ms(reference.p50)} · ${ms(reference.p99)} (${share!.toFixed(2)}×)`
          : '–',
      target: dpop ? '≥ 1,000/s (issue 2)' : '≥ 1.0× node-oidc-provider, p99 ≤ 20 ms (issue 23)',
      met: dpop ? r.perSecond >= 1000 : share === null ? null : share >= 1 && r.p99 <= 20,
    });
  }
  charts.push([
    'token.svg',
    barChart(
      'Token endpoint, 32 connections (req/s)',
      'req/s',
      all.map((r) => ({
        label: String(r.case).replace('client_credentials, ', ''),
        value: r.perSecond,
        reference: r === reference,
      })),
    ),
  ]);
}

/** Issue 40: the catch-up ≤ 1 s, live delivery meanwhile ≤ 1.10× without, SSE ≤ 1.2× WebSocket. */
function resumeStream(results: R[], rows: Row[]): void {
  for (const r of results) {
    if (r.case === 'resume') {
      const n = n0(r.clients);
      const ratio = r.liveLastDuringMs / r.liveLastReferenceMs;
      rows.push({
        figure: `resume after ${n0(r.missed)} missed telegrams: connection request → the ${n0(r.missed)}th · → the next live one, median of ${r.rounds}`,
        value: `${ms(r.toMissedMs)} · ${ms(r.toLiveMs)}`,
        reference: `from the socket's start message: ${ms(r.fromOpenToMissedMs)}`,
        target: '≤ 1 s (issue 40)',
        met: r.toLiveMs <= 1000,
      });
      rows.push({
        figure: `ingest → last of ${n} other sockets, an EEW during that catch-up (${r.overlapping} of ${r.rounds} rounds within it), median`,
        value: ms(r.liveLastDuringMs),
        reference: `no catch-up, same rounds: ${ms(r.liveLastReferenceMs)} (${ratio.toFixed(2)}×)`,
        target: '≤ 1.10× (issue 40)',
        met: ratio <= 1.1,
      });
    } else if (r.case === 'sse-fanout') {
      const n = n0(r.clients);
      const ratio = r.streamLastMs / r.socketLastMs;
      rows.push({
        figure: `ingest → first / last of ${n} server-sent-event streams, median`,
        value: `${ms(r.streamFirstMs)} / ${ms(r.streamLastMs)}`,
        reference: `${n} WebSocket clients: ${ms(r.socketFirstMs)} / ${ms(r.socketLastMs)} (last ${ratio.toFixed(2)}×)`,
        target: 'last ≤ 1.2× WebSocket (issue 40)',
        met: ratio <= 1.2,
      });
    }
  }
}

function simpleRows(name: string, results: R[], rows: Row[], charts: [string, string][]): void {
  if (name === 'startup') {
    for (const r of results)
      rows.push({
        figure: `startup on an existing embedded database, median of ${r.runs}`,
        value: ms(r.median),
        reference: '–',
        target: '< 2 s (issue 2)',
        met: r.median < 2000,
      });
    for (const r of results.filter((r) => r.heapMiB !== undefined))
      rows.push({
        figure: `started and idle 2 s: JavaScript heap used · RSS, median of ${r.runs}`,
        value: `${r.heapMiB.toFixed(1)} MiB · ${r.rssMiB.toFixed(0)} MiB`,
        reference: '–',
        target: '–',
        met: null,
      });
    for (const r of results.filter((r) => r.firstEewMs !== undefined))
      rows.push({
        figure: `the first early warning after a start: its ingest call, median of ${r.runs}`,
        value: ms(r.firstEewMs),
        reference: `the next one: ${ms(r.nextEewMs)}`,
        target: '–',
        met: null,
      });
  } else if (name === 'attacks') {
    for (const r of results) {
      if (r.guessesPerAccountPerHour !== undefined) {
        rows.push({
          figure: `${r.case}: guesses per account per hour · delay the owner sees`,
          value: `${n0(r.guessesPerAccountPerHour)} · ${r.ownerRefused ? 'refused' : ms(r.ownerDelayMs)}`,
          reference: '–',
          target: 'the owner never refused (issue 14)',
          met: !r.ownerRefused,
        });
        continue;
      }
      // Kept list answers: bounded by the caches' budgets (docs/operations.md "Memory"), beside the
      // same number of requests for one query.
      if (r.answerBytes !== undefined) {
        rows.push({
          figure: `${r.case}, median of ${r.runs}: RSS growth · /healthz p99`,
          value: `${r.rssGrowthMiB.toFixed(1)} MiB · ${ms(r.healthzP99)}`,
          reference: `the same requests for one query: ${r.referenceRssGrowthMiB.toFixed(1)} MiB · ${ms(r.referenceHealthzP99)}`,
          target: `RSS within the caches' bound (${r.cachesBoundMiB} MiB) · < 100 ms`,
          met: r.rssGrowthMiB <= r.cachesBoundMiB && r.healthzP99 < 100,
        });
        continue;
      }
      // The console's cases (issue 21) are refused or capped, not timed out: what got through instead.
      if (r.timeoutMs === undefined) {
        const through =
          r.opened !== undefined
            ? `${r.opened} streams open`
            : r.accounts !== undefined
              ? `${r.accounts} accounts, ${r.streams} streams, administrator ${r.adminStatus}`
              : `closed after ${(r.closedMaxMs / 1000).toFixed(2)} s`;
        rows.push({
          figure: `${r.case}, median of ${r.runs}: RSS growth · /healthz p99 · what got through`,
          value: `${r.rssGrowthMiB.toFixed(1)} MiB · ${ms(r.healthzP99)} · ${through}`,
          reference: '–',
          target: '< 64 MiB · < 100 ms (issue 21)',
          met: r.rssGrowthMiB < 64 && r.healthzP99 < 100,
        });
        continue;
      }
      rows.push({
        figure: `${r.case}, median of ${r.runs}: RSS growth · /healthz p99 · latest close`,
        value: `${r.rssGrowthMiB.toFixed(1)} MiB · ${ms(r.healthzP99)} · ${(r.closedMaxMs / 1000).toFixed(2)} s`,
        reference:
          `time-out ${(r.timeoutMs / 1000).toFixed(0)} s` +
          (r.referenceHealthzP99 === undefined
            ? ''
            : `; bare node:http /healthz p99 ${ms(r.referenceHealthzP99)}`),
        target: '< 64 MiB · < 100 ms · within the time-out (issue 14)',
        met: r.rssGrowthMiB < 64 && r.healthzP99 < 100 && r.closedInTime,
      });
    }
  } else if (name === 'ingest') {
    for (const r of results) {
      const ratio = r.withConversion / r.withoutConversion;
      rows.push({
        figure: `ingest of ${r.telegrams} fixtures (${r.engine}), with conversion`,
        value: `${n0(r.withConversion)} telegrams/s`,
        reference: `without conversion: ${n0(r.withoutConversion)}/s (${ratio.toFixed(2)}×)`,
        target: `≥ 0.8× without (issue 9); ≥ ${r.engine === 'PostgreSQL' ? 500 : 200}/s (issue 4)`,
        met: ratio >= 0.8 && r.withConversion >= (r.engine === 'PostgreSQL' ? 500 : 200),
      });
      charts.push([
        'ingest.svg',
        barChart(
          `Ingest of the fixtures, ${r.engine} (telegrams/s)`,
          '/s',
          [
            { label: 'with conversion', value: r.withConversion },
            { label: 'without conversion', value: r.withoutConversion, reference: true },
          ],
          r.withoutConversion * 0.8,
        ),
      ]);
    }
  } else if (name === 'conversion') {
    const summary = results.find((r) => r.bench === 'conversion-summary');
    const schemas = results.filter((r) => r.bench === 'conversion');
    for (const r of schemas) {
      const quake = /^(earthquake|eew)/.test(String(r.schema));
      const weather = /^(weather|forecast)/.test(String(r.schema));
      rows.push({
        figure: `conversion ${r.schema} (${r.documents} documents), median · p99 · largest's median from the text · on the parsed document`,
        value: `${ms(r.median)} · ${ms(r.p99)} · ${ms(r.largestMedian)} · ${ms(r.largestParsedMedian)}`,
        reference: '–',
        // Ingest parses a telegram once for its Control/Head and its conversion (docs/conversion.md
        // "Speed"): what the conversion adds to it is the time on the parsed document.
        target: quake
          ? 'median < 1 ms (issue 9)'
          : weather
            ? 'largest < 5 ms median on the parsed document (issue 11)'
            : '–',
        met: quake ? r.median < 1 : weather ? r.largestParsedMedian < 5 : null,
      });
    }
    if (summary) {
      rows.push({
        figure: 'conversion: longest event-loop stall',
        value: ms(summary.longestStall),
        reference: '–',
        target: '≤ 20 ms (issue 11)',
        met: summary.longestStall <= 20,
      });
      rows.push({
        figure: 'conversion: fixtures that failed to convert or validate',
        value: String(summary.failures),
        reference: '–',
        target: '0 (issue 11)',
        met: summary.failures === 0,
      });
    }
    charts.push([
      'conversion.svg',
      barChart(
        'Conversion time per document, median (ms)',
        'ms',
        schemas.map((r) => ({ label: String(r.schema), value: r.median })),
      ),
    ]);
  } else if (name === 'authorize') {
    for (const r of results)
      rows.push({
        figure: `authorization endpoint: ${r.case} (${r.engine}), req/s · p50 · p99`,
        value: `${n0(r.perSecond)} · ${ms(r.p50)} · ${ms(r.p99)}`,
        reference: '–',
        target: '–',
        met: null,
      });
  } else if (name === 'connection-memory') {
    for (const r of results)
      rows.push({
        figure: `heap per idle WebSocket connection (${n0(r.connections)} connections, after GC)`,
        value: `${r.namazuHeapKiB.toFixed(2)} KiB`,
        reference: `bare ws ${r.bareHeapKiB.toFixed(2)} KiB`,
        target: '≤ 8 KiB',
        met: r.namazuHeapKiB <= 8,
      });
  } else if (name === 'large-telegram') {
    for (const r of results) {
      rows.push({
        figure: `EEW delivery beside 4 MB ingests (${r.database}), median of ${r.runs.length} runs: added p99 · longest stall`,
        value: `${ms(r.addedP99)} · ${ms(r.besideMaxStall)}`,
        reference: `alone: longest stall ${ms(r.aloneMaxStall)}`,
        target: '≤ 5 ms · ≤ 20 ms (issue 20)',
        met: r.addedP99 <= 5 && r.besideMaxStall <= 20,
      });
      rows.push({
        figure: '20 concurrent ingests of the largest telegram: RSS growth against their size',
        value: `${r.rssGrowthRatio.toFixed(2)}×`,
        reference: '–',
        target: '≤ 5× (issue 20)',
        met: r.rssGrowthRatio <= 5 && r.concurrentFailed === 0,
      });
    }
  } else if (name === 'restart') {
    // Each start beside the bare Fastify app started the same way (npm start, or node directly).
    const bare = (c: string) =>
      results.find(
        (r) =>
          r.case ===
          (c.startsWith('npm')
            ? 'reference: npm start of a bare Fastify app'
            : 'reference: node app.js, a bare Fastify app'),
      );
    for (const r of results.filter((r) => !String(r.case).startsWith('reference'))) {
      const ref = bare(String(r.case));
      rows.push({
        figure: `restart on an existing embedded database to /healthz: ${r.case}, median of ${r.runs}`,
        value: ms(r.median),
        reference: ref ? `bare Fastify app: ${ms(ref.median)}` : '–',
        target: r.case === 'npm start' ? '< 2 s' : '–',
        met: r.case === 'npm start' ? r.median < 2000 : null,
      });
    }
  } else if (name === 'ping-spread') {
    for (const r of results)
      rows.push({
        figure: `live delivery to ${n0(r.clients)} public sockets on one process pinged every ${r.pingMs / 1000} s, last client p50 · p99 (run ${r.run + 1}, ${r.pinged.telegrams} telegrams)`,
        value: `${ms(r.pinged.p50)} · ${ms(r.pinged.p99)}`,
        reference: `not pinged: ${ms(r.reference.p50)} · ${ms(r.reference.p99)} (p99 ${r.p99Ratio.toFixed(2)}×)`,
        target: '–',
        met: null,
      });
  } else if (name === 'resume-stream') {
    resumeStream(results, rows);
  } else if (name === 'token-bearer') {
    for (const r of results)
      rows.push({
        figure: `Bearer check on GET ${r.path} (${r.engine}): check · route req/s · p99`,
        value: `${r.checkMicroseconds.toFixed(2)} µs (${(100 * r.checkShare).toFixed(2)}% of the route) · ${n0(r.perSecond)} · ${ms(r.p99)}`,
        reference: '–',
        target: '–',
        met: null,
      });
  }
}

/** The marks around the report's kept part: npm run bench writes it back as it found it. */
export const KEPT_BEGIN =
  '<!-- Kept by npm run bench: runs recorded by hand, from here to the end mark, carried over to the next report. -->';
export const KEPT_END = '<!-- End of the part npm run bench keeps. -->';

/** The kept part of an earlier report, marks included; empty when it has none. */
export function keptPart(previous: string): string {
  const from = previous.indexOf(KEPT_BEGIN);
  const to = previous.indexOf(KEPT_END, from);
  return from < 0 || to < 0 ? '' : previous.slice(from, to + KEPT_END.length);
}

function render(run: Run, rows: Row[], charts: string[], kept: string): string {
  const { machine: m } = run;
  const out = [
    '# Benchmark report',
    '',
    `Written by \`npm run bench\` (bench/run.ts) on ${run.started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
      `${((run.finished.getTime() - run.started.getTime()) / 60_000).toFixed(1)} min. Settings: \`${run.settings}\`.`,
    '',
    '## Machine',
    '',
    `- CPU: ${m.cpus} × ${m.cpuModel}`,
    `- Memory: ${m.memoryGiB.toFixed(1)} GiB; Node ${m.node}; Linux ${m.kernel}`,
    `- Database: ${m.database}`,
    `- Load average (1 min) during the run: min ${m.load.min.toFixed(1)}, mean ${m.load.mean.toFixed(1)}, max ${m.load.max.toFixed(1)}` +
      (m.load.mean > m.cpus
        ? ` — the machine was shared and busy (more runnable work than its ${m.cpus} CPUs): treat every figure as a lower bound of what it does alone.`
        : ''),
    '',
    '## Benches',
    '',
    '| bench | status | time | load average |',
    '|---|---|---|---|',
    ...run.outcomes.map(
      (o) =>
        `| ${o.name} | ${o.status}${o.reason ? `: ${o.reason.replace(/\|/g, '\\|')}` : ''} | ${o.seconds.toFixed(0)} s | ${o.load?.toFixed(1) ?? '–'} |`,
    ),
    '',
    '## Figures, references and targets',
    '',
    '| figure | namazu | reference | target | met |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.figure} | ${r.value} | ${r.reference} | ${r.target} | ${r.met === null ? '–' : r.met ? 'yes' : '**no**'} |`,
    ),
    '',
    'References: the telegram list runs beside a bare Fastify route serving the same JSON bytes ' +
      '(bench/bare-fastify.ts); the fan-out beside a bare `ws` server broadcasting the same `data` ' +
      'message to as many clients of the same client process (bench/fanout.ts); the token endpoint ' +
      'beside node-oidc-provider with its in-memory adapter issuing the same grant to the same client ' +
      '(bench/oidc-provider-reference.ts); delivery to other sockets during a catch-up beside the same ' +
      'delivery with no catch-up, and server-sent-event streams beside as many sockets, both in ' +
      'phases of the same run (bench/resume-stream.ts). List and token figures are medians of rounds ' +
      'alternated with their reference.',
    '',
    'Fan-out latency runs from the return of the ingest call (after its commit and announcement) in the ' +
      'bench process, so the first client can receive the telegram before that: a negative first-client ' +
      'figure means delivery beat the return of the ingest call.',
    '',
    ...(kept ? [kept, ''] : []),
    ...(run.outcomes.some((o) => o.name === 'scale' && o.results.length > 0)
      ? ['## Scale topology', '', SCALE_TOPOLOGY, '']
      : []),
    '## Charts',
    '',
    ...charts.map((c) => `![${c}](report/${c})\n`),
    '## Output of each bench',
    '',
  ];
  for (const o of run.outcomes) {
    out.push(`### ${o.name}: ${o.title}`, '');
    if (o.status === 'skipped') out.push(`Skipped: ${o.reason}.`, '');
    else out.push('```text', o.output || '(no output)', '```', '');
  }
  out.push(
    '## Longer runs',
    '',
    'The defaults keep `npm run bench` near ten minutes. For figures comparable to the issues: ' +
      '`npm run bench -- --seconds 15 --rounds 20 --sizes 1,1000,5000,10000 --list-rows 1000000 --runs 7`; ' +
      '`--only fanout,telegram-list` runs some benches only. Each bench also runs alone (see its header comment).',
    '',
  );
  return out.join('\n');
}

export function writeReport(root: string, run: Run): void {
  const rows: Row[] = [];
  const charts: [string, string][] = [];
  for (const o of run.outcomes) {
    const results = o.results as R[];
    if (results.length === 0) continue;
    if (o.name === 'fanout') fanout(results, rows, charts);
    else if (o.name === 'telegram-list') telegramList(results, rows, charts);
    else if (o.name === 'token') token(results, rows, charts);
    else if (o.name === 'scale') scale(results, rows, charts);
    else simpleRows(o.name, results, rows, charts);
  }
  const dir = join(root, 'bench', 'report');
  const report = join(root, 'bench', 'REPORT.md');
  const kept = existsSync(report) ? keptPart(readFileSync(report, 'utf8')) : '';
  // The charts the kept part shows stay, unless this run draws them anew.
  const keptCharts = [...kept.matchAll(/\(report\/([\w.-]+\.svg)\)/g)]
    .map((m) => m[1]!)
    .filter((file) => existsSync(join(dir, file)))
    .map((file) => [file, readFileSync(join(dir, file), 'utf8')] as const);
  // Charts of an earlier run would outlive it otherwise.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [file, svg] of [...keptCharts, ...charts]) writeFileSync(join(dir, file), svg);
  writeFileSync(
    report,
    render(
      run,
      rows,
      charts.map(([file]) => file),
      kept,
    ),
  );
}
