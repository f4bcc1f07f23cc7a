// Startup time of `namazu serve` on an existing embedded database: from process spawn to the first
// successful GET /healthz, starting from the bundle (built first by namazu-bin.ts, as `npm start` does);
// and what the process holds once started and idle (its /metrics, `SETTLE_MS` after /healthz answered).
// Usage: node --import tsx bench/startup.ts [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitResult } from './result.ts';
import { BIN } from './namazu-bin.ts';
import { median } from './stats.ts';

const runs = Number(process.argv[2] ?? 7);
const dataDir = mkdtempSync(join(tmpdir(), 'namazu-startup-'));
const env = { ...process.env, NAMAZU_DEMO: '0', NAMAZU_LOG_LEVEL: 'warn', NAMAZU_DATA_DIR: dataDir };

/** How long a started process is left idle before its memory is read. */
const SETTLE_MS = 2000;

interface Start {
  ms: number;
  heapMiB: number;
  rssMiB: number;
}

/** A gauge of the Prometheus text, in MiB. */
function gaugeMiB(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]) / 2 ** 20;
}

async function once(port: number): Promise<Start> {
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
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { ms, heapMiB, rssMiB };
}

const port = 18000 + Math.floor(Math.random() * 1000);
const first = (await once(port)).ms;
console.log(`first start (creates the database): ${first.toFixed(0)} ms`);
const starts: Start[] = [];
for (let i = 0; i < runs; i++) starts.push(await once(port));
const times = starts.map((s) => s.ms).sort((a, b) => a - b);
const medianMs = median(times);
const heapMiB = median(starts.map((s) => s.heapMiB));
const rssMiB = median(starts.map((s) => s.rssMiB));
emitResult('startup', { runs, first, median: medianMs, min: times[0], max: times.at(-1), heapMiB, rssMiB });
console.log(
  `start on an existing database, ${runs} runs: median ${medianMs.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms`,
);
console.log(
  `started and idle ${SETTLE_MS / 1000} s, median of the ${runs} runs: JavaScript heap used ${heapMiB.toFixed(1)} MiB, RSS ${rssMiB.toFixed(0)} MiB`,
);
