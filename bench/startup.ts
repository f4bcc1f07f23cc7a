// Startup time of `namazu serve` on an existing embedded database: from process spawn to the first
// successful GET /healthz, starting from the bundle (built first by namazu-bin.ts, as `npm start` does);
// what the process holds once started and idle (its /metrics, `SETTLE_MS` after /healthz answered);
// and the first early warning after the start: the time of its ingest call (stored, converted and
// announced) beside the next one's.
// Usage: node --import tsx bench/startup.ts [runs]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitResult } from './result.ts';
import { BIN } from './namazu-bin.ts';
import { median } from './stats.ts';
import { fixture } from '../test/support/fixtures.ts';

const runs = Number(process.argv[2] ?? 7);
const dataDir = mkdtempSync(join(tmpdir(), 'namazu-startup-'));
const env = { ...process.env, NAMAZU_DEMO: '0', NAMAZU_LOG_LEVEL: 'warn', NAMAZU_DATA_DIR: dataDir };

/** How long a started process is left idle before its memory is read. */
const SETTLE_MS = 2000;

interface Start {
  ms: number;
  heapMiB: number;
  rssMiB: number;
  /** The ingest call of the first early warning after the start, and of the next one. */
  firstEewMs: number;
  nextEewMs: number;
}

/** An administrator's API key that may ingest, made on the data directory before the first start. */
function adminKey(): string {
  const run = (...args: string[]) => {
    const done = spawnSync(process.execPath, [BIN, ...args, '--data-dir', dataDir], {
      env,
      encoding: 'utf8',
    });
    if (done.status !== 0) throw new Error(`namazu ${args[0]}: ${done.stderr}`);
    return done.stdout;
  };
  run('account', 'create', '--email', 'bench@example.test', '--password', 'bench-password-1', '--admin');
  const made = run(
    'apikey',
    'create',
    '--account',
    'bench@example.test',
    '--scopes',
    'admin.telegram.ingest',
  );
  return (JSON.parse(made) as { key: string }).key;
}

const EEW = readFileSync(fixture('official', '77_01_01_240613_VXSE45.xml'), 'utf8');
let ingested = 0;

/** Ingests the early warning, made a new telegram by a comment, and times the call. */
async function ingestEew(port: number, key: string): Promise<number> {
  const body = `${EEW}<!-- ${++ingested} -->`;
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/admin/v1/telegrams`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      'content-type': 'application/xml',
    },
    body,
  });
  const answer = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`ingest: ${res.status} ${answer}`);
  return ms;
}

/** A gauge of the Prometheus text, in MiB. */
function gaugeMiB(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]) / 2 ** 20;
}

async function once(port: number, key: string): Promise<Start> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--host', '127.0.0.1'], {
    env,
    stdio: 'ignore',
  });
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const heapMiB = gaugeMiB(metrics, 'nodejs_heap_size_used_bytes');
  const rssMiB = gaugeMiB(metrics, 'process_resident_memory_bytes');
  const firstEewMs = await ingestEew(port, key);
  const nextEewMs = await ingestEew(port, key);
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { ms, heapMiB, rssMiB, firstEewMs, nextEewMs };
}

const port = 18000 + Math.floor(Math.random() * 1000);
const key = adminKey();
const first = (await once(port, key)).ms;
console.log(`first start (not counted; the account commands made the database): ${first.toFixed(0)} ms`);
const starts: Start[] = [];
for (let i = 0; i < runs; i++) starts.push(await once(port, key));
const times = starts.map((s) => s.ms).sort((a, b) => a - b);
const medianMs = median(times);
const heapMiB = median(starts.map((s) => s.heapMiB));
const rssMiB = median(starts.map((s) => s.rssMiB));
const firstEewMs = median(starts.map((s) => s.firstEewMs));
const nextEewMs = median(starts.map((s) => s.nextEewMs));
emitResult('startup', {
  runs,
  first,
  median: medianMs,
  min: times[0],
  max: times.at(-1),
  heapMiB,
  rssMiB,
  firstEewMs,
  nextEewMs,
});
console.log(
  `start on an existing database, ${runs} runs: median ${medianMs.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms`,
);
console.log(
  `started and idle ${SETTLE_MS / 1000} s, median of the ${runs} runs: JavaScript heap used ${heapMiB.toFixed(1)} MiB, RSS ${rssMiB.toFixed(0)} MiB`,
);
console.log(
  `the first early warning after the start, median of the ${runs} runs: ingest call ${firstEewMs.toFixed(1)} ms; the next one ${nextEewMs.toFixed(1)} ms`,
);
