// GET /v2/telegram?limit=20 with a Bearer token under 100 connections (wrk), side by side with a bare Fastify route
// serving the same JSON bytes: first page, nextToken pages near the top and deep, and a polling page; and the
// merged earthquake list GET /v2/gd/earthquake?limit=20 (its events come from ingesting every fixture once).
// The cases alternate with the bare route round by round; each figure is the median of the rounds.
// Needs wrk and a database filled by bench/gen-telegrams.ts:
//   NAMAZU_DATABASE_URL=postgres://… node --import tsx bench/telegram-list.ts [seconds] [rounds (default 3)]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccount } from '../src/accounts/accounts.ts';
import { addContract } from '../src/accounts/contracts.ts';
import { encodeCursor } from '../src/api/cursor.ts';
import { createClient } from '../src/issuer/clients.ts';
import { createMemoryBus } from '../src/bus/memory.ts';
import { loadConfig } from '../src/config.ts';
import { openDb } from '../src/db/open.ts';
import { loadPepper } from '../src/security/pepper.ts';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { fixtureIndex } from '../test/support/fixtures.ts';
import { emitResult, wrkMs } from './result.ts';
import { classifications } from '../src/classifications.ts';
import { BIN } from './namazu-bin.ts';
import { median } from './stats.ts';

const seconds = Number(process.argv[2] ?? 10);
const rounds = Number(process.argv[3] ?? 3);
// wrk threads (default 2).
const threads = process.env.NAMAZU_BENCH_WRK_THREADS ?? '2';
const BARE = fileURLToPath(new URL('./bare-fastify.ts', import.meta.url));
const config = loadConfig(process.env);
if (!config.databaseUrl)
  throw new Error('set NAMAZU_DATABASE_URL to a database filled by bench/gen-telegrams.ts');

const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
const total = (
  await db.query<{ n: number; max: number }>(
    'SELECT count(*)::int AS n, max(serial)::int AS max FROM telegrams',
  )
)[0]!;
const pepper = await loadPepper(db, config.secret);
const account = await createAccount(db, {
  email: `bench-${Date.now()}@example.test`,
  password: 'bench-password',
});
for (const c of classifications.filter((c) => c.startsWith('telegram.')))
  await addContract(db, account.id, c);
const { client, clientSecret } = await createClient(db, pepper, {
  accountId: account.id,
  name: 'bench',
  type: 'confidential',
  grants: ['client_credentials'],
  redirectUris: [],
  scopes: ['telegram.list', 'gd.earthquake'],
});
// Earthquake events for the gd list: the real fixture chains through the real pipeline (idempotent).
const bus = createMemoryBus();
for (const entry of fixtureIndex()) {
  await ingestTelegram({ db, bus }, readFileSync(entry.path), {
    fileName: entry.file,
    receivedTime: Date.now(),
  });
}
await bus.close();
await db.close();

const port = 19000 + Math.floor(Math.random() * 500);
const barePort = port + 500;
const children: ChildProcess[] = [];
const env = { ...process.env, NAMAZU_DEMO: '0', NAMAZU_LOG_LEVEL: 'warn' };
children.push(
  spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--host', '127.0.0.1'], {
    env,
    stdio: 'inherit',
  }),
);

async function waitFor(url: string, headers: Record<string, string> = {}): Promise<Response> {
  for (;;) {
    try {
      const res = await fetch(url, { headers });
      if (res.ok) return res;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Wrk {
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

/** One warmed-up wrk run against `url`. */
function runWrk(url: string, withAuth: boolean): Wrk {
  const headers = withAuth ? ['-H', `Authorization: ${auth}`] : [];
  execFileSync('wrk', [`-t${threads}`, '-c100', '-d2s', ...headers, url]); // warm-up
  const out = execFileSync('wrk', [`-t${threads}`, '-c100', `-d${seconds}s`, '--latency', ...headers, url], {
    encoding: 'utf8',
  });
  return {
    perSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50: wrkMs(/\s50%\s+([\d.]+\w+)/.exec(out)?.[1]) ?? NaN,
    p99: wrkMs(/\s99%\s+([\d.]+\w+)/.exec(out)?.[1]) ?? NaN,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

let auth = '';
try {
  await waitFor(`http://127.0.0.1:${port}/healthz`);
  const tokenRes = await fetch(`http://127.0.0.1:${port}/account/oauth2/v1/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: clientSecret!,
      scope: 'telegram.list gd.earthquake',
    }),
  });
  const { access_token: token } = (await tokenRes.json()) as { access_token: string };
  auth = `Bearer ${token}`;
  const base = `http://127.0.0.1:${port}/v2/telegram?limit=20`;
  const first = (await (await waitFor(base, { authorization: auth })).json()) as { nextPooling: string };
  const dir = mkdtempSync(join(tmpdir(), 'namazu-bench-'));
  writeFileSync(join(dir, 'page.json'), JSON.stringify(first));
  children.push(
    spawn(process.execPath, ['--import', 'tsx', BARE, String(barePort), join(dir, 'page.json')], {
      stdio: 'inherit',
    }),
  );
  await waitFor(`http://127.0.0.1:${barePort}/v2/telegram`);

  const deep = encodeCursor('v2t', 'older', Math.floor(total.max / 2));
  // Just below the newest telegrams held in memory: a database page near the top, to compare with depth.
  const shallow = encodeCursor('v2t', 'older', total.max - 5000);
  const runs: [string, string, boolean][] = [
    ['bare Fastify, same JSON', `http://127.0.0.1:${barePort}/v2/telegram`, false],
    ['Namazu first page', base, true],
    [
      `Namazu nextToken page from the database (serial < ${total.max - 5000})`,
      `${base}&cursorToken=${shallow}`,
      true,
    ],
    [
      `Namazu deep nextToken page (serial < ${Math.floor(total.max / 2)})`,
      `${base}&cursorToken=${deep}`,
      true,
    ],
    ['Namazu polling (nextPooling)', `${base}&cursorToken=${first.nextPooling}`, true],
    [
      'Namazu earthquake list GET /v2/gd/earthquake?limit=20',
      `http://127.0.0.1:${port}/v2/gd/earthquake?limit=20`,
      true,
    ],
  ];
  console.log(
    `database: ${total.n} telegrams; wrk -t${threads} -c100 -d${seconds}s; credentials: OAuth access token (Authorization: Bearer); ${rounds} alternated rounds`,
  );
  const figures = new Map<string, Wrk[]>(runs.map(([name]) => [name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const [name, url, withAuth] of runs) {
      const f = runWrk(url, withAuth);
      figures.get(name)!.push(f);
      console.log(
        `round ${round} | ${name} | ${f.perSecond} req/s | p50 ${f.p50} ms | p99 ${f.p99} ms${f.non2xx ? ` | non-2xx: ${f.non2xx}` : ''}`,
      );
    }
  }
  const bare = median(figures.get(runs[0]![0])!.map((f) => f.perSecond));
  console.log(
    `medians of ${rounds} rounds\n| run | req/s | p50 | p99 | share of bare |\n|---|---|---|---|---|`,
  );
  for (const [name, , withAuth] of runs) {
    const fs = figures.get(name)!;
    const m = {
      perSecond: median(fs.map((f) => f.perSecond)),
      p50: median(fs.map((f) => f.p50)),
      p99: median(fs.map((f) => f.p99)),
      non2xx: fs.reduce((n, f) => n + f.non2xx, 0),
    };
    console.log(
      `| ${name} | ${m.perSecond.toFixed(0)} | ${m.p50.toFixed(2)} ms | ${m.p99.toFixed(2)} ms | ${(m.perSecond / bare).toFixed(2)}× |${m.non2xx ? ` non-2xx: ${m.non2xx}` : ''}`,
    );
    emitResult('telegram-list', { case: name, reference: !withAuth, telegrams: total.n, rounds, ...m });
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
}
