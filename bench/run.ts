// Runs every benchmark under bench/ and writes bench/REPORT.md (with charts in bench/report/): `npm run bench`.
// Each bench runs in its own process; its human-readable output is passed through and kept in the
// report, and its `BENCH {json}` lines (bench/result.ts) are collected. A bench that cannot run is
// reported as skipped with the reason; one that fails, with its exit status and last lines.
//
//   npm run bench -- [--seconds 5] [--rounds 10] [--sizes 1,1000,5000] [--list-rows 200000]
//                    [--runs 3] [--scale-sizes 100000] [--only fanout,token,...]
//
// PostgreSQL: NAMAZU_BENCH_DATABASE_URL (a server the runner may create and drop scratch databases
// on); without it the benches that need PostgreSQL are skipped and the others run on PGlite.
// wrk must be installed (apt-get install wrk) for the HTTP benches.
// The benches that start `namazu` build the bundle first and start it, as `npm start` does
// (bench/namazu-bin.ts).
import { spawn, spawnSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { writeReport, type BenchOutcome, type Machine } from './report.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '10' },
    sizes: { type: 'string', default: '1,1000,5000' },
    'scale-sizes': { type: 'string', default: '100000' },
    'list-rows': { type: 'string', default: '200000' },
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
  },
});
const seconds = values.seconds!;
const runs = values.runs!;
const only = values.only ? new Set(values.only.split(',')) : null;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const adminUrl = process.env.NAMAZU_BENCH_DATABASE_URL || null;
const hasWrk = !spawnSync('wrk', ['--version']).error;
// The longest bench, attacks with its console cases, takes about 5 minutes at --runs 3.
const TIME_LIMIT_MS = 10 * 60_000;

interface Bench {
  name: string;
  /** What it measures, for the report. */
  title: string;
  /** Why it cannot run here, if it cannot. */
  missing?: string | null;
  /** Longer than TIME_LIMIT_MS, for a bench that needs it. */
  timeLimitMs?: number;
  /** Prepares what it needs; returns the command and its environment. */
  setup: () => Promise<{ command: string[]; env?: Record<string, string> }>;
}

const tsx = (script: string, ...args: string[]) => [process.execPath, '--import', 'tsx', script, ...args];
const noPostgres = adminUrl ? null : 'NAMAZU_BENCH_DATABASE_URL is not set (a PostgreSQL server)';
const noWrk = hasWrk ? null : 'wrk is not installed (apt-get install wrk)';

// Scratch databases created by this run, dropped at the end.
const scratch: string[] = [];
async function scratchDatabase(name: string): Promise<string> {
  const dbName = `namazu_bench_${name.replace(/-/g, '_')}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl! });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  scratch.push(dbName);
  const url = new URL(adminUrl!);
  url.pathname = `/${dbName}`;
  return url.toString();
}
async function dropScratch(): Promise<void> {
  if (scratch.length === 0) return;
  const admin = new pg.Client({ connectionString: adminUrl! });
  await admin.connect();
  for (const name of scratch) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
const onPostgres = async (name: string): Promise<Record<string, string>> =>
  adminUrl ? { NAMAZU_BENCH_DATABASE_URL: await scratchDatabase(name) } : {};

const benches: Bench[] = [
  {
    name: 'startup',
    title: '`namazu serve` startup on an existing embedded database (bench/startup.ts)',
    setup: async () => ({ command: tsx('bench/startup.ts', runs) }),
  },
  {
    name: 'restart',
    title:
      'Restart of `npm start` and `node bin/namazu.js serve` to the first /healthz, beside a bare Fastify app (bench/restart.ts)',
    setup: async () => ({ command: tsx('bench/restart.ts', runs) }),
  },
  {
    name: 'conversion',
    title: 'JSON conversion time per schema (bench/conversion.ts)',
    setup: async () => ({ command: tsx('bench/conversion.ts', values.rounds!) }),
  },
  {
    name: 'ingest',
    title: 'Ingest of the real fixtures, with and without conversion (bench/ingest.ts)',
    setup: async () => ({
      command: tsx('bench/ingest.ts', runs),
      env: adminUrl ? { NAMAZU_BENCH_DATABASE_URL: adminUrl } : ({} as Record<string, string>),
    }),
  },
  {
    name: 'large-telegram',
    title:
      'EEW delivery beside 4 MB telegram ingests, event-loop stalls, RSS of 20 concurrent 16 MiB ingests (bench/large-telegram.ts)',
    // On PGlite, and on PostgreSQL too when there is one (the test server's databases are made there).
    setup: async () => {
      const bench = `"${process.execPath}" --expose-gc --import tsx bench/large-telegram.ts 200 ${runs}`;
      return {
        command: [
          'bash',
          '-c',
          adminUrl ? `${bench} && NAMAZU_TEST_DATABASE_URL="$ADMIN_URL" ${bench}` : bench,
        ],
        env: adminUrl ? { ADMIN_URL: adminUrl } : {},
      };
    },
  },
  {
    name: 'retention',
    title:
      'Pruning a year of telegrams while early warnings are ingested and delivered; store size per day (bench/retention.ts)',
    // At JMA's full volume on PostgreSQL (about 6 minutes; a tenth of it makes the catch-up too short
    // for a steady p99); the embedded engine takes over the time limit there, so a tenth.
    setup: async () => ({
      command: tsx('bench/retention.ts', '--days', '365', '--scale', adminUrl ? '1' : '0.1'),
      env: adminUrl ? { NAMAZU_BENCH_DATABASE_URL: adminUrl } : ({} as Record<string, string>),
    }),
  },
  {
    name: 'backup',
    title: 'namazu backup of a database of telegrams while it serves requests (bench/backup.ts)',
    setup: async () => ({
      command: tsx('bench/backup.ts', '100000', '10'),
      env: adminUrl ? { NAMAZU_BENCH_DATABASE_URL: adminUrl } : ({} as Record<string, string>),
    }),
  },
  {
    name: 'authorize',
    title: 'Authorization endpoint (bench/authorize.ts)',
    setup: async () => ({ command: tsx('bench/authorize.ts', seconds), env: await onPostgres('authorize') }),
  },
  {
    name: 'token',
    title:
      'Token endpoint, client_credentials, beside node-oidc-provider (bench/token.ts, bench/oidc-provider-reference.ts)',
    missing: noWrk,
    setup: async () => ({ command: tsx('bench/token.ts', seconds, runs), env: await onPostgres('token') }),
  },
  {
    name: 'token-bearer',
    title: 'Bearer check on a data route (bench/token-bearer.ts)',
    missing: noWrk,
    setup: async () => ({
      command: tsx('bench/token-bearer.ts', '/v2/telegram', seconds),
      env: await onPostgres('token_bearer'),
    }),
  },
  {
    name: 'telegram-list',
    title: `GET /v2/telegram?limit=20 beside a bare Fastify route (bench/telegram-list.ts, bench/bare-fastify.ts)`,
    missing: noWrk ?? noPostgres,
    setup: async () => {
      const databaseUrl = await scratchDatabase('list');
      const filled = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'bench/gen-telegrams.ts', values['list-rows']!],
        {
          cwd: ROOT,
          env: { ...process.env, NAMAZU_DATABASE_URL: databaseUrl },
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      );
      if (filled.status !== 0) throw new Error(`bench/gen-telegrams.ts exited with ${filled.status}`);
      return {
        command: tsx('bench/telegram-list.ts', seconds, runs),
        env: { NAMAZU_DATABASE_URL: databaseUrl },
      };
    },
  },
  {
    name: 'connection-memory',
    title: 'Heap per idle WebSocket connection beside a bare `ws` server (bench/connection-memory.ts)',
    setup: async () => ({
      command: [
        'bash',
        '-c',
        `ulimit -n "$(ulimit -Hn)" && exec "${process.execPath}" --expose-gc --import tsx bench/connection-memory.ts 5000`,
      ],
    }),
  },
  {
    name: 'attacks',
    title:
      'Slow uploads, slow headers, WebSocket floods and sign-in guessing against `namazu serve` (bench/attacks.ts)',
    setup: async () => ({ command: tsx('bench/attacks.ts', runs), env: await onPostgres('attacks') }),
  },
  {
    name: 'fanout',
    title: 'WebSocket fan-out beside a bare `ws` broadcast (bench/fanout.sh)',
    missing: noPostgres,
    setup: async () => ({
      command: ['bash', 'bench/fanout.sh', '--sizes', values.sizes!, '--rounds', values.rounds!],
      env: { NAMAZU_BENCH_DATABASE_URL: adminUrl! },
    }),
  },
  {
    name: 'ping-spread',
    title:
      'Live delivery to 12,000 public sockets pinged every 5 s beside the same with no pings (bench/ping-spread.sh)',
    missing: noPostgres,
    setup: async () => ({
      command: ['bash', 'bench/ping-spread.sh', '--runs', runs],
      env: { NAMAZU_BENCH_DATABASE_URL: adminUrl! },
    }),
  },
  {
    name: 'resume-stream',
    title:
      'Resume after 1,000 missed telegrams beside live delivery to 5,000 sockets; server-sent-event fan-out beside WebSocket fan-out (bench/resume-stream.sh)',
    missing: noPostgres,
    // Each round of the resume ingests 1,000 telegrams: rounds as many as runs, at least 3.
    setup: async () => ({
      command: ['bash', 'bench/resume-stream.sh', '--rounds', String(Math.max(3, Number(runs)))],
      env: { NAMAZU_BENCH_DATABASE_URL: adminUrl! },
    }),
  },
  {
    name: 'scale',
    title:
      'N clients over 4 nodes (ticket flow and public socket), a node killed mid-burst, beside the same topology of bare `ws` processes (bench/scale.sh)',
    missing: noPostgres,
    // 100,000 clients connect at a few hundred per second on 2 shared cores: minutes per run.
    timeLimitMs: 40 * 60_000,
    setup: async () => ({
      command: ['bash', 'bench/scale.sh', '--sizes', values['scale-sizes']!],
      env: { NAMAZU_BENCH_DATABASE_URL: adminUrl! },
    }),
  },
];

// Load average, sampled through the whole run.
const loadSamples: number[] = [];
const sampleLoad = () => loadSamples.push(loadavg()[0]!);
sampleLoad();
const sampler = setInterval(sampleLoad, 5000);

function run(
  command: string[],
  env: Record<string, string>,
  timeLimitMs: number,
): Promise<{ status: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d;
      process.stderr.write(d);
    });
    const timer = setTimeout(() => {
      err += `\nstopped after ${timeLimitMs / 1000} s`;
      child.kill('SIGTERM');
    }, timeLimitMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out, err });
    });
  });
}

const started = new Date();
const outcomes: BenchOutcome[] = [];
for (const bench of benches) {
  if (only && !only.has(bench.name)) continue;
  const base = { name: bench.name, title: bench.title };
  if (bench.missing) {
    console.log(`\n== ${bench.name}: skipped (${bench.missing})`);
    outcomes.push({ ...base, status: 'skipped', reason: bench.missing, results: [], output: '', seconds: 0 });
    continue;
  }
  console.log(`\n== ${bench.name}`);
  const t0 = performance.now();
  const load0 = loadSamples.length;
  try {
    const { command, env } = await bench.setup();
    const { status, out, err } = await run(command, env ?? {}, bench.timeLimitMs ?? TIME_LIMIT_MS);
    const results = out
      .split('\n')
      .filter((l) => l.startsWith('BENCH '))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    const output = out
      .split('\n')
      .filter((l) => !l.startsWith('BENCH ') && !l.startsWith('{"level"'))
      .join('\n')
      .trim();
    const during = loadSamples.slice(load0);
    const outcome: BenchOutcome = {
      ...base,
      status: status === 0 ? 'ok' : 'failed',
      results,
      output,
      seconds: (performance.now() - t0) / 1000,
      load: during.length ? during.reduce((a, b) => a + b) / during.length : loadavg()[0]!,
    };
    if (status !== 0)
      outcome.reason = `exit status ${status}: ${err.trim().split('\n').slice(-5).join(' / ')}`;
    else if (results.length === 0) {
      outcome.status = 'failed';
      outcome.reason = 'it printed no BENCH result';
    }
    outcomes.push(outcome);
  } catch (error) {
    outcomes.push({ ...base, status: 'failed', reason: String(error), results: [], output: '', seconds: 0 });
  }
}
clearInterval(sampler);
sampleLoad();
if (adminUrl) await dropScratch();

const cpuList = cpus();
const machine: Machine = {
  cpus: cpuList.length,
  cpuModel: cpuList[0]?.model ?? 'unknown',
  memoryGiB: totalmem() / 2 ** 30,
  node: process.version,
  kernel: release(),
  load: {
    min: Math.min(...loadSamples),
    mean: loadSamples.reduce((a, b) => a + b) / loadSamples.length,
    max: Math.max(...loadSamples),
  },
  database: adminUrl
    ? 'PostgreSQL (NAMAZU_BENCH_DATABASE_URL)'
    : 'PGlite (NAMAZU_BENCH_DATABASE_URL not set)',
};
const settings = `--seconds ${seconds} --rounds ${values.rounds} --sizes ${values.sizes} --list-rows ${values['list-rows']} --runs ${runs} --scale-sizes ${values['scale-sizes']}`;
writeReport(ROOT, { started, finished: new Date(), machine, settings, outcomes });
console.log('\nwrote bench/REPORT.md');
const failed = outcomes.filter((o) => o.status === 'failed');
if (failed.length > 0) {
  console.error(`failed: ${failed.map((o) => o.name).join(', ')}`);
  process.exitCode = 1;
}
