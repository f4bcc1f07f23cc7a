// Startup time of `namazu serve` on an existing embedded database: from process spawn to the first
// successful GET /healthz, starting from the bundle (built first by namazu-bin.ts, as `npm start` does).
// Usage: node --import tsx bench/startup.ts [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitResult } from './result.ts';
import { BIN } from './namazu-bin.ts';

const runs = Number(process.argv[2] ?? 7);
const dataDir = mkdtempSync(join(tmpdir(), 'namazu-startup-'));
const env = { ...process.env, NAMAZU_DEMO: '0', NAMAZU_LOG_LEVEL: 'warn', NAMAZU_DATA_DIR: dataDir };

async function once(port: number): Promise<number> {
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
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
  return ms;
}

const port = 18000 + Math.floor(Math.random() * 1000);
const first = await once(port);
console.log(`first start (creates the database): ${first.toFixed(0)} ms`);
const times: number[] = [];
for (let i = 0; i < runs; i++) times.push(await once(port));
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)]!;
emitResult('startup', { runs, first, median, min: times[0], max: times.at(-1) });
console.log(
  `start on an existing database, ${runs} runs: median ${median.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms`,
);
