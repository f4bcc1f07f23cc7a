// Restart time as a user sees it: from spawning `npm start` (or `node bin/namazu.js serve`) on an
// existing embedded database to the first 200 from GET /healthz, measured from outside. Beside it, the
// reference: a bare Fastify app answering /healthz, started the same two ways (`npm start` of a
// package whose start script is `node app.js`, and `node app.js`). The cases alternate round by
// round, so that the machine's noise falls on all of them alike; medians of the rounds.
// Nothing is built first: `npm start` builds the bundle when the sources changed, as a user's does.
// Usage: node --import tsx bench/restart.ts [runs]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { emitResult } from './result.ts';
import { median } from './stats.ts';

const runs = Math.max(5, Number(process.argv[2] ?? 7));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'namazu-restart-'));
const dataDir = join(scratch, 'data');

// The reference app, a package of its own whose start script runs it, importing this checkout's Fastify.
const fastifyUrl = pathToFileURL(join(ROOT, 'node_modules/fastify/fastify.js')).href;
writeFileSync(join(scratch, 'package.json'), '{"private":true,"scripts":{"start":"node app.mjs"}}\n');
writeFileSync(
  join(scratch, 'app.mjs'),
  `import Fastify from '${fastifyUrl}';
const app = Fastify();
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.NAMAZU_PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`,
);

interface Case {
  name: string;
  command: string[];
  cwd: string;
}
const cases: Case[] = [
  { name: 'npm start', command: ['npm', 'start'], cwd: ROOT },
  { name: 'node bin/namazu.js serve', command: [process.execPath, 'bin/namazu.js', 'serve'], cwd: ROOT },
  { name: 'reference: npm start of a bare Fastify app', command: ['npm', 'start'], cwd: scratch },
  {
    name: 'reference: node app.js, a bare Fastify app',
    command: [process.execPath, 'app.mjs'],
    cwd: scratch,
  },
];

const env = { ...process.env, NAMAZU_DATA_DIR: dataDir, NAMAZU_HOST: '127.0.0.1', NAMAZU_LOG_LEVEL: 'warn' };

/** True while any process of the group led by `pid` runs. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stop(child: ChildProcess): Promise<void> {
  // npm runs the server through a shell: the whole process group is stopped, and waited for, so that
  // the next start finds the data directory free.
  process.kill(-child.pid!, 'SIGTERM');
  while (groupAlive(child.pid!)) await new Promise((r) => setTimeout(r, 10));
}

/** Milliseconds from spawn to the first 200 from /healthz. */
async function once(c: Case, port: number): Promise<number> {
  const t0 = performance.now();
  const child = spawn(c.command[0]!, c.command.slice(1), {
    cwd: c.cwd,
    env: { ...env, NAMAZU_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${c.name} exited before answering:\n${stderr}`);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      if (res?.status === 200) return performance.now() - t0;
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await stop(child);
  }
}

const port = 18000 + Math.floor(Math.random() * 1000);

try {
  // The first start creates the database (and builds the bundle if the sources changed): not timed.
  const first = await once(cases[0]!, port);
  console.log(`first start (creates the database in ${dataDir}): ${first.toFixed(0)} ms`);
  const times = new Map(cases.map((c) => [c.name, [] as number[]]));
  for (let round = 0; round < runs; round++) {
    for (const c of cases) times.get(c.name)!.push(await once(c, port));
  }
  console.log(`restart to the first 200 from /healthz, median of ${runs} rounds (min–max):`);
  for (const c of cases) {
    const ms = times.get(c.name)!;
    console.log(
      `  ${c.name.padEnd(44)} ${median(ms).toFixed(0).padStart(5)} ms  (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)})`,
    );
    emitResult('restart', {
      case: c.name,
      runs,
      median: median(ms),
      min: Math.min(...ms),
      max: Math.max(...ms),
    });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
