// The attacks of docs/security.md against a real `namazu serve` process with its default settings,
// measuring what they cost: the server's RSS growth, GET /healthz latency (p99) while they run, and
// when the server closed each attacking connection against the time-out that bounds it. Then the
// sign-in limits, driven with a manual clock through one simulated hour: the guesses an attacker
// gets per account from one address and from 100, and the delay the owner sees meanwhile.
//
// Usage: node --import tsx bench/attacks.ts [runs]
//   NAMAZU_BENCH_DATABASE_URL=postgres://…  on PostgreSQL (a scratch database); default: PGlite.
// Targets (docs/security.md "Figures"): RSS growth < 64 MiB, /healthz p99 < 100 ms, every
// attacking connection closed within its time-out.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import {
  defaultSigninLimits,
  countSigninAttempt,
  forgiveSigninAttempt,
} from '../src/console/signin/signin-limits.ts';
import { signupLimits } from '../src/console/signin/signup-limits.ts';
import { ManualClock } from '../src/clock.ts';
import { defaults } from '../src/config.ts';
import { cachesBoundBytes } from '../src/server.ts';
import { PAGE_CACHE_BYTES } from '../src/telegrams/page-cache.ts';
import { fixture } from '../test/support/fixtures.ts';
import { defaultFeedLimits } from '../src/console/live/feed.ts';
import { migrate } from '../src/db/migrate.ts';
import { openDb } from '../src/db/open.ts';
import { MAX_INVALID_FRAMES } from '../src/realtime/welcome.ts';
import { CLOSE_GRACE_MS } from '../src/realtime/service.ts';
import { sourceAttackFigures } from './attacks-sources.ts';
import { emitResult } from './result.ts';
import { BIN, cleanEnv } from './namazu-bin.ts';
import { cpuSeconds, rss } from './proc.ts';
import { median, percentile } from './stats.ts';

const runs = Number(process.argv[2] ?? 3);
const databaseUrl = process.env.NAMAZU_BENCH_DATABASE_URL || null;
const config = defaults();
/** Node checks request and header time-outs once a second (http/app.ts): a close may come that late. */
const CHECK_INTERVAL_MS = 1000;
const MiB = 1024 * 1024;

interface Namazu {
  origin: string;
  child: ChildProcess;
  apiKey: string;
  stop(): Promise<void>;
}

/** The demo API key, from the credentials file of the first start (later starts reuse the demo). */
let demoKey: string | undefined;
const secret = randomBytes(24).toString('hex');

/** `namazu serve` with the demo setup (its API key has every scope and plan) and default limits. */
async function startNamazu(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Namazu> {
  const env = cleanEnv({
    NAMAZU_DEMO: '1',
    NAMAZU_LOG_LEVEL: 'info',
    NAMAZU_DATA_DIR: dataDir,
    NAMAZU_SECRET: secret,
    ...(databaseUrl ? { NAMAZU_DATABASE_URL: databaseUrl } : {}),
    ...extraEnv,
  });
  // In the data directory: on PostgreSQL the demo credentials file is written to the working directory.
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1'], {
    env,
    cwd: dataDir,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  let port: string | undefined;
  while (!port || !demoKey) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`namazu serve did not start:\n${out}`);
    }
    port ??= /"port":(\d+).*"namazu listening"/.exec(out)?.[1];
    const credentials = /"path":"([^"]+)".*"demo credentials written"/.exec(out)?.[1];
    if (credentials) demoKey = /-u '([^':]+):'/.exec(readFileSync(credentials, 'utf8'))?.[1];
    await sleep(50);
  }
  const apiKey = demoKey;
  return {
    origin: `http://127.0.0.1:${port}`,
    child,
    apiKey,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The reference: a bare `node:http` server in a process of its own, with Namazu's header and
 * request time-outs, answering /healthz, and any other request 401 with `Connection: close`
 * before its body is read, as Namazu answers an upload without credentials.
 */
const BARE = `
import { createServer } from 'node:http';
const server = createServer({ requestTimeout: ${config.requestTimeoutMs}, headersTimeout: ${config.headersTimeoutMs} }, (req, res) => {
  if (req.url === '/healthz') return res.end('{"status":"ok"}');
  res.writeHead(401, { 'content-type': 'application/json', connection: 'close' }).end('{"status":"error"}');
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

async function startBare(): Promise<Namazu> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', BARE]);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return {
    origin: `http://127.0.0.1:${port}`,
    child,
    apiKey: '',
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Requests GET /healthz of `origin` one at a time, 20 ms apart, until its stdin closes, then prints
 * the latencies (ms) as JSON. It runs in a process of its own: the attacker's event loop, busy
 * writing, must not delay the probe.
 */
const PROBER = `
const latencies = [];
let running = true;
process.stdin.on('end', () => (running = false)).resume();
while (running) {
  const t0 = performance.now();
  try {
    await (await fetch(process.argv[1] + '/healthz', { signal: AbortSignal.timeout(30000) })).text();
    latencies.push(performance.now() - t0);
  } catch {
    latencies.push(30000);
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}
process.stdout.write(JSON.stringify(latencies));
`;

/** While `attack` runs: /healthz every 20 ms from another process, and the server's RSS every 100 ms. */
async function underAttack(namazu: Namazu, attack: () => Promise<number[]>) {
  const pid = namazu.child.pid!;
  for (let i = 0; i < 20; i++) await (await fetch(`${namazu.origin}/healthz`)).text(); // warm
  const rssBefore = rss(pid);
  const cpuBefore = cpuSeconds(pid);
  const t0 = performance.now();
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, rss(pid))), 100);
  const prober = spawn(process.execPath, ['--input-type=module', '-e', PROBER, namazu.origin]);
  let probed = '';
  prober.stdout.on('data', (d) => (probed += d));
  const proberDone = new Promise((resolve) => prober.on('exit', resolve));
  const closedAfterMs = await attack();
  prober.stdin.end();
  await proberDone;
  const latencies = JSON.parse(probed) as number[];
  clearInterval(sampler);
  peak = Math.max(peak, rss(pid));
  const serverCpuShare = (cpuSeconds(pid) - cpuBefore) / ((performance.now() - t0) / 1000);
  closedAfterMs.sort((a, b) => a - b);
  return {
    rssGrowthMiB: (peak - rssBefore) / MiB,
    serverCpuShare,
    healthzP99: percentile(latencies, 99),
    healthzSamples: latencies.length,
    closedMedianMs: percentile(closedAfterMs, 50),
    closedMaxMs: closedAfterMs.at(-1)!,
  };
}

/** Opens a connection, sends `write(socket)`, and resolves with the time until the server closes it. */
function attackingConnection(
  origin: string,
  write: (socket: Socket) => void,
  giveUpMs: number,
): Promise<number> {
  const { port } = new URL(origin);
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('data', () => {}); // reads the answer, if any, so the close is seen
    socket.on('error', () => {});
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve(performance.now() - started);
    });
    socket.on('connect', () => write(socket));
  });
}

/** 200 connections each send 4 MiB − 1 byte to the ingest endpoint without credentials, then go quiet. */
function slowUploads(origin: string): Promise<number[]> {
  const size = 4 * MiB - 1;
  const head =
    `POST /admin/v1/telegrams HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/xml\r\n` +
    `Content-Length: ${size}\r\n\r\n`;
  const body = Buffer.alloc(size - 1, 0x41);
  return Promise.all(
    Array.from({ length: 200 }, () =>
      attackingConnection(
        origin,
        (socket) => {
          socket.write(head);
          socket.write(body);
        },
        config.requestTimeoutMs + 30_000,
      ),
    ),
  );
}

/** 200 connections send a request line and then one header byte every second, never ending the headers. */
function slowHeaders(origin: string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: 200 }, () =>
      attackingConnection(
        origin,
        (socket) => {
          socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
          const drip = setInterval(() => (socket.writable ? socket.write('a') : clearInterval(drip)), 1000);
          socket.on('close', () => clearInterval(drip));
        },
        config.headersTimeoutMs + 30_000,
      ),
    ),
  );
}

/**
 * 4 WebSocket clients that stop reading and send 1-byte frames that are not JSON. The server's view
 * decides when one is closed: its session leaves GET /v2/socket?status=open.
 */
async function websocketFlood(namazu: Namazu): Promise<number[]> {
  const auth = { authorization: `Basic ${Buffer.from(`${namazu.apiKey}:`).toString('base64')}` };
  const ids: number[] = [];
  const clients: WebSocket[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${namazu.origin}/v2/socket`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ classifications: ['telegram.earthquake'], appName: `flood-${i}` }),
    });
    const started = (await res.json()) as { websocket?: { id: number; url: string } };
    if (!started.websocket) throw new Error(`POST /v2/socket: ${res.status} ${JSON.stringify(started)}`);
    ids.push(started.websocket.id);
    const ws = new WebSocket(started.websocket.url, ['service.v2'], { perMessageDeflate: false });
    ws.on('error', () => {});
    await new Promise((resolve) => ws.once('open', resolve));
    clients.push(ws);
  }
  const t0 = performance.now();
  const frame = Buffer.from('x');
  for (const ws of clients) {
    // Stop reading: replies pile up in the server's send queue unless something bounds them.
    (ws as unknown as { _socket: Socket })._socket.pause();
    for (let i = 0; i < 20_000; i++) ws.send(frame);
  }
  const closedAfter = new Map<number, number>();
  while (closedAfter.size < ids.length && performance.now() - t0 < config.pingIntervalMs + 30_000) {
    const res = await fetch(`${namazu.origin}/v2/socket?status=open&limit=100`, { headers: auth });
    const open = new Set(((await res.json()) as { items: { id: number }[] }).items.map((s) => s.id));
    for (const id of ids)
      if (!open.has(id) && !closedAfter.has(id)) closedAfter.set(id, performance.now() - t0);
    await sleep(50);
  }
  for (const ws of clients) ws.terminate();
  return ids.map((id) => closedAfter.get(id) ?? Infinity);
}

interface Scenario {
  name: string;
  /** The time-out that bounds each attacking connection, and what it is. */
  timeoutMs: number;
  timeout: string;
  attack: (namazu: Namazu) => Promise<number[]>;
  /** Also run against the bare server (BARE), in the same runs, alternated. */
  reference?: boolean;
}

const scenarios: Scenario[] = [
  {
    name: '200 slow unauthenticated 4 MiB uploads',
    timeoutMs: config.requestTimeoutMs + CHECK_INTERVAL_MS,
    timeout: `request time-out ${config.requestTimeoutMs / 1000} s`,
    attack: (n) => slowUploads(n.origin),
    // The attacker's 800 MB of loopback writes share the machine's cores with the server: what a
    // server that refuses before reading can reach here.
    reference: true,
  },
  {
    name: `4 non-reading WebSocket clients flooding invalid frames`,
    timeoutMs: CLOSE_GRACE_MS + 1000,
    timeout: `closed at the ${MAX_INVALID_FRAMES}th invalid frame, cut off ${CLOSE_GRACE_MS / 1000} s later if it does not answer (+ 1 s for the session's end to be recorded)`,
    attack: websocketFlood,
  },
  {
    name: '200 slow-header connections',
    timeoutMs: config.headersTimeoutMs + CHECK_INTERVAL_MS,
    timeout: `header time-out ${config.headersTimeoutMs / 1000} s`,
    attack: (n) => slowHeaders(n.origin),
  },
];

const dataDir = mkdtempSync(join(tmpdir(), 'namazu-bench-attacks-'));
console.log(`engine ${databaseUrl ? 'postgres' : 'pglite'}, ${runs} runs per attack, default settings`);
try {
  for (const scenario of scenarios) {
    const results = [];
    const references = [];
    for (let run = 0; run < runs; run++) {
      // A fresh process per run: RSS growth is measured from a server that has not been attacked.
      const namazu = await startNamazu(dataDir);
      try {
        results.push(await underAttack(namazu, () => scenario.attack(namazu)));
      } finally {
        await namazu.stop();
      }
      if (!scenario.reference) continue;
      const bare = await startBare();
      try {
        references.push(await underAttack(bare, () => scenario.attack(bare)));
      } finally {
        await bare.stop();
      }
    }
    const referenceHealthzP99 =
      references.length > 0 ? median(references.map((r) => r.healthzP99)) : undefined;
    const figures = {
      rssGrowthMiB: median(results.map((r) => r.rssGrowthMiB)),
      healthzP99: median(results.map((r) => r.healthzP99)),
      serverCpuShare: median(results.map((r) => r.serverCpuShare)),
      closedMedianMs: median(results.map((r) => r.closedMedianMs)),
      closedMaxMs: Math.max(...results.map((r) => r.closedMaxMs)),
    };
    const closedInTime = figures.closedMaxMs <= scenario.timeoutMs;
    emitResult('attacks', {
      case: scenario.name,
      runs,
      ...figures,
      timeoutMs: scenario.timeoutMs,
      closedInTime,
      referenceHealthzP99,
    });
    console.log(
      `${scenario.name} (median of ${runs}): RSS +${figures.rssGrowthMiB.toFixed(1)} MiB, ` +
        `/healthz p99 ${figures.healthzP99.toFixed(1)} ms, server CPU ${(figures.serverCpuShare * 100).toFixed(0)} % of a core; ` +
        `connections closed after ` +
        `${(figures.closedMedianMs / 1000).toFixed(2)} s (median), ${(figures.closedMaxMs / 1000).toFixed(2)} s (latest of all runs) ` +
        `— ${scenario.timeout}: ${closedInTime ? 'every one within it' : 'NOT all within it'}` +
        (referenceHealthzP99 === undefined
          ? ''
          : `; bare node:http under the same attack: /healthz p99 ${referenceHealthzP99.toFixed(1)} ms`),
    );
  }
  await consoleFigures();
  await keptAnswersFigures();
  await signinFigures();
  await sourceAttackFigures({ runs, dataDir, startNamazu, underAttack });
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * The sign-in limits of src/console/signin/signin-limits.ts, driven through one hour of a manual clock on
 * the real database: an attacker that guesses as fast as it is let (delays do not hold back an
 * attacker that sends in parallel, so they are not waited for), from one address and from 100.
 * Halfway through, the owner signs in from an address of their own.
 */
async function signinFigures(): Promise<void> {
  const db = await openDb({ databaseUrl, dataDir: join(dataDir, 'signin'), poolSize: 2 });
  await migrate(db);
  const pepper = randomBytes(32);
  const limits = defaultSigninLimits;
  const HOUR = 3_600_000;
  try {
    for (const addresses of [1, 100]) {
      const clock = new ManualClock(Date.UTC(2026, 0, 1));
      const start = clock.now();
      const email = `victim-${addresses}@example.test`;
      let guesses = 0;
      let ownerDelayMs = -1;
      let ownerRefusedMs = -1;
      while (clock.now() - start < HOUR) {
        let admitted = 0;
        let nextOpening = Infinity;
        for (let a = 0; a < addresses; a++) {
          const verdict = await countSigninAttempt(
            db,
            pepper,
            clock,
            limits,
            email,
            `198.51.${a >> 8}.${a & 255}`,
          );
          if (verdict.waitMs === 0) admitted++;
          else nextOpening = Math.min(nextOpening, verdict.waitMs);
          clock.advance(1);
        }
        guesses += admitted;
        if (ownerDelayMs < 0 && clock.now() - start >= HOUR / 2) {
          const owner = await countSigninAttempt(db, pepper, clock, limits, email, '203.0.113.9');
          ownerDelayMs = owner.delayMs;
          ownerRefusedMs = owner.waitMs;
          if (owner.waitMs === 0) await forgiveSigninAttempt(db, pepper, email, '203.0.113.9');
        }
        if (admitted === 0) clock.advance(nextOpening);
      }
      emitResult('attacks', {
        case: `sign-in from ${addresses} address${addresses > 1 ? 'es' : ''}`,
        guessesPerAccountPerHour: guesses,
        ownerDelayMs,
        ownerRefused: ownerRefusedMs > 0,
      });
      console.log(
        `sign-in, one account attacked from ${addresses} address${addresses > 1 ? 'es' : ''}: ` +
          `${guesses} guesses per hour; the owner, from their own address during the attack: ` +
          (ownerRefusedMs > 0
            ? `refused for ${(ownerRefusedMs / 1000).toFixed(0)} s`
            : `answered after a delay of ${(ownerDelayMs / 1000).toFixed(2)} s`),
      );
    }
  } finally {
    await db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The console's attacks (docs/security.md "Figures", second set): anonymous uploads to the
// administration page's ingest form, live-view streams asked for all at once, and open sign-ups
// from one address filling the live view's caps. Each against a fresh process, like the above.

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request from a chosen local address (127.0.0.x), the answer read whole. */
function requestFrom(
  origin: string,
  localAddress: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${origin}${path}`,
      { method: options.method ?? 'GET', headers: options.headers, localAddress, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function cookiesOf(answer: Answer): string {
  const cookies = (answer.headers['set-cookie'] as string[] | undefined) ?? [];
  return cookies.map((c) => c.split(';')[0]!).join('; ');
}

function csrfOf(html: string): string {
  return /name="csrf" value="([^"]+)"/.exec(html)![1]!;
}

/** Posts the form at `path` (sign-in or sign-up) from `localAddress`; the session cookie, or null. */
async function postAccountForm(
  origin: string,
  localAddress: string,
  path: string,
  fields: Record<string, string>,
): Promise<string | null> {
  const page = await requestFrom(origin, localAddress, path);
  const answer = await requestFrom(origin, localAddress, path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(page) },
    body: new URLSearchParams({ ...fields, csrf: csrfOf(page.body) }).toString(),
  });
  return answer.status === 303 ? cookiesOf(answer) : null;
}

/** The demo administrator's session cookie (its password is in the demo credentials file). */
async function demoAdminCookie(origin: string): Promise<string> {
  const file = readFileSync(join(dataDir, 'demo-credentials.txt'), 'utf8');
  const [, email, password] = /Account:\s+(\S+) \/ (\S+)/.exec(file)!;
  const cookie = await postAccountForm(origin, '127.0.0.1', '/account/signin', {
    email: email!,
    password: password!,
  });
  if (!cookie) throw new Error('the demo administrator could not sign in');
  return cookie;
}

/**
 * Opens live-view streams at once; resolves with their statuses, how many of them are still open
 * a second later (a stream may end early, freeing its slot), and a function ending them.
 */
async function liveViews(origin: string, opens: { cookie: string; localAddress: string }[]) {
  const requests: ClientRequest[] = [];
  let ended = 0;
  const statuses = await Promise.all(
    opens.map(
      ({ cookie, localAddress }) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            `${origin}/console/live/events`,
            { headers: { cookie }, localAddress, agent: false },
            (res) => {
              res.resume();
              if (res.statusCode === 200) res.on('close', () => ended++);
              resolve(res.statusCode!);
            },
          );
          req.on('error', (err) => (req.destroyed ? resolve(0) : reject(err)));
          req.end();
          requests.push(req);
        }),
    ),
  );
  await sleep(1000);
  const openAtOnce = statuses.filter((s) => s === 200).length - ended;
  return { statuses, openAtOnce, close: () => requests.forEach((r) => r.destroy()) };
}

/** 128 anonymous multipart uploads of 4 MiB to the console's ingest form, 8 from each of 16 addresses. */
function anonymousFormUploads(origin: string): Promise<number[]> {
  const { port } = new URL(origin);
  const size = 4 * MiB;
  const head =
    `POST /console/admin/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${size}\r\n\r\n`;
  const body = Buffer.concat([
    Buffer.from('--b\r\nContent-Disposition: form-data; name="telegram"; filename="x.xml"\r\n\r\n'),
    Buffer.alloc(size - 80, 0x41),
  ]);
  return Promise.all(
    Array.from(
      { length: 128 },
      (_, i) =>
        new Promise<number>((resolve) => {
          const started = performance.now();
          const socket = connect({
            port: Number(port),
            host: '127.0.0.1',
            localAddress: `127.0.0.${2 + (i % 16)}`,
          });
          socket.on('data', () => {});
          socket.on('error', () => {});
          const giveUp = setTimeout(() => socket.destroy(), config.requestTimeoutMs + 30_000);
          socket.on('close', () => {
            clearTimeout(giveUp);
            resolve(performance.now() - started);
          });
          socket.on('connect', () => {
            socket.write(head);
            socket.write(body);
          });
        }),
    ),
  );
}

async function consoleFigures(): Promise<void> {
  const rows: {
    name: string;
    figures: Record<string, number | boolean>;
    text: (f: Record<string, number>) => string;
  }[] = [];
  const uploads: Record<string, number>[] = [];
  const streams: Record<string, number>[] = [];
  const signups: Record<string, number>[] = [];
  for (let run = 0; run < runs; run++) {
    let namazu = await startNamazu(dataDir);
    try {
      const r = await underAttack(namazu, () => anonymousFormUploads(namazu.origin));
      uploads.push(r);
    } finally {
      await namazu.stop();
    }

    namazu = await startNamazu(dataDir);
    try {
      const admin = await demoAdminCookie(namazu.origin);
      let views: Awaited<ReturnType<typeof liveViews>> | undefined;
      const r = await underAttack(namazu, async () => {
        views = await liveViews(
          namazu.origin,
          Array.from({ length: 40 }, () => ({ cookie: admin, localAddress: '127.0.0.1' })),
        );
        return [];
      });
      streams.push({ ...r, opened: views!.openAtOnce });
      views!.close();
    } finally {
      await namazu.stop();
    }

    namazu = await startNamazu(dataDir);
    try {
      // Each run from an address of its own: the sign-up windows (one hour) outlive a run.
      const address = `127.0.1.${10 + run}`;
      let created: string[] = [];
      let fromAddress = 0;
      let adminStatus = 0;
      const r = await underAttack(namazu, async () => {
        const cookies = await Promise.all(
          Array.from({ length: 250 }, (_, i) =>
            postAccountForm(namazu.origin, address, '/account/signup', {
              email: `signup-${run}-${i}-${Date.now()}@bench.test`,
              password: 'a long enough password',
            }),
          ),
        );
        created = cookies.filter((c): c is string => c !== null);
        const views = await liveViews(
          namazu.origin,
          created.flatMap((cookie) => Array.from({ length: 4 }, () => ({ cookie, localAddress: address }))),
        );
        fromAddress = views.openAtOnce;
        const adminView = await liveViews(namazu.origin, [
          { cookie: await demoAdminCookie(namazu.origin), localAddress: '127.0.0.1' },
        ]);
        adminStatus = adminView.statuses[0]!;
        adminView.close();
        views.close();
        return [];
      });
      signups.push({ ...r, accounts: created.length, streams: fromAddress, adminStatus });
    } finally {
      await namazu.stop();
    }
  }
  const med = (list: Record<string, number>[], key: string) => median(list.map((r) => r[key]!));
  const common = (list: Record<string, number>[]) => ({
    rssGrowthMiB: med(list, 'rssGrowthMiB'),
    healthzP99: med(list, 'healthzP99'),
    serverCpuShare: med(list, 'serverCpuShare'),
  });
  rows.push(
    {
      name: '128 anonymous 4 MiB uploads to the console ingest form from 16 addresses',
      figures: { ...common(uploads), closedMaxMs: Math.max(...uploads.map((r) => r.closedMaxMs!)) },
      text: (f) =>
        `connections closed after ${(f.closedMaxMs! / 1000).toFixed(2)} s at the latest (refused before the body)`,
    },
    {
      name: '40 simultaneous live-view requests of one account',
      figures: { ...common(streams), opened: Math.max(...streams.map((r) => r.opened!)) },
      text: (f) => `streams open at once: ${f.opened} (cap ${defaultFeedLimits.perAccount})`,
    },
    {
      name: '250 sign-ups from one address, each opening 4 live views; then the administrator',
      figures: {
        ...common(signups),
        accounts: Math.max(...signups.map((r) => r.accounts!)),
        streams: Math.max(...signups.map((r) => r.streams!)),
        adminStatus: Math.max(...signups.map((r) => r.adminStatus!)),
      },
      text: (f) =>
        `accounts created: ${f.accounts} (limit ${signupLimits.perAddress.limit} an hour per address), ` +
        `their live views open at once: ${f.streams} (cap ${defaultFeedLimits.perAddress} per address), administrator's live view: ${f.adminStatus}`,
    },
  );
  for (const row of rows) {
    emitResult('attacks', { case: row.name, runs, ...row.figures });
    const f = row.figures as Record<string, number>;
    console.log(
      `${row.name} (median of ${runs}): RSS +${f.rssGrowthMiB!.toFixed(1)} MiB, /healthz p99 ${f.healthzP99!.toFixed(1)} ms, ` +
        `server CPU ${(f.serverCpuShare! * 100).toFixed(0)} % of a core; ${row.text(f)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Kept list answers (docs/security.md "Figures"): ten telegrams with 2 MiB headlines, then
// `GET /v2/telegram?xmlReport=true&limit=100` under 30 URLs differing by an unknown parameter and
// in 20 valid forms (limit 81–100), some 21 MB an answer. The reference: the same 50 requests for
// one query, as one client polling it would ask, in a fresh process too.

/** Ingests the ten telegrams (the same ones each run: a later run finds them stored). */
async function plantLongHeadlines(namazu: Namazu): Promise<void> {
  const source = readFileSync(fixture('official', '44_01_01_151008_VFVO51.xml'), 'utf8');
  const headline = '火'.repeat((2 * MiB) / 3);
  for (let i = 0; i < 10; i++) {
    const xml = source.replace(
      /<Headline>\s*<Text>[\s\S]*?<\/Text>/,
      `<Headline>\n<Text>${headline}${i}</Text>`,
    );
    const res = await fetch(`${namazu.origin}/admin/v1/telegrams`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml', ...basicAuth(namazu) },
      body: xml,
    });
    await res.arrayBuffer();
    if (res.status >= 300 && res.status !== 409) throw new Error(`ingest: ${res.status}`);
  }
}

function basicAuth(namazu: Namazu): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${namazu.apiKey}:`).toString('base64')}` };
}

/** The list answers of `queries`, one after another; the size of the largest. */
async function askLists(namazu: Namazu, queries: string[]): Promise<number> {
  let largest = 0;
  for (const query of queries) {
    const res = await fetch(`${namazu.origin}/v2/telegram?${query}`, { headers: basicAuth(namazu) });
    const bytes = (await res.arrayBuffer()).byteLength;
    if (res.status !== 200) throw new Error(`GET /v2/telegram?${query}: ${res.status}`);
    largest = Math.max(largest, bytes);
  }
  return largest;
}

async function keptAnswersFigures(): Promise<void> {
  const attack = [
    ...Array.from({ length: 30 }, (_, n) => `xmlReport=true&limit=100&u=${n + 1}`),
    ...Array.from({ length: 20 }, (_, i) => `xmlReport=true&limit=${81 + i}`),
  ];
  const reference = attack.map(() => 'xmlReport=true&limit=100');
  const attacked: Record<string, number>[] = [];
  const references: Record<string, number>[] = [];
  for (let run = 0; run < runs; run++) {
    for (const [queries, into] of [
      [attack, attacked],
      [reference, references],
    ] as const) {
      const namazu = await startNamazu(dataDir);
      try {
        await plantLongHeadlines(namazu);
        let answerBytes = 0;
        const r = await underAttack(namazu, async () => {
          answerBytes = await askLists(namazu, queries);
          return [];
        });
        into.push({ ...r, answerBytes });
      } finally {
        await namazu.stop();
      }
    }
  }
  const med = (list: Record<string, number>[], key: string) => median(list.map((r) => r[key]!));
  const budgetMiB = (config.answerCacheBytes + PAGE_CACHE_BYTES) / MiB;
  const cachesBoundMiB = cachesBoundBytes(config) / MiB;
  const figures = {
    rssGrowthMiB: med(attacked, 'rssGrowthMiB'),
    healthzP99: med(attacked, 'healthzP99'),
    serverCpuShare: med(attacked, 'serverCpuShare'),
    answerBytes: med(attacked, 'answerBytes'),
    referenceRssGrowthMiB: med(references, 'rssGrowthMiB'),
    referenceHealthzP99: med(references, 'healthzP99'),
    budgetMiB,
    cachesBoundMiB,
  };
  const name = '50 list queries of 21 MB answers (30 unknown parameters, 20 limits)';
  emitResult('attacks', { case: name, runs, ...figures });
  console.log(
    `${name} (median of ${runs}): RSS +${figures.rssGrowthMiB.toFixed(1)} MiB (peak), /healthz p99 ${figures.healthzP99.toFixed(1)} ms, ` +
      `server CPU ${(figures.serverCpuShare * 100).toFixed(0)} % of a core; answers of ${(figures.answerBytes / 1e6).toFixed(1)} MB, ` +
      `kept within ${budgetMiB} MiB (NAMAZU_ANSWER_CACHE_BYTES + page cache); ` +
      `the same 50 requests for one query: RSS +${figures.referenceRssGrowthMiB.toFixed(1)} MiB, /healthz p99 ${figures.referenceHealthzP99.toFixed(1)} ms`,
  );
}
