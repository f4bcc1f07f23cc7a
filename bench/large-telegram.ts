// Telegrams of several megabytes beside early warnings (docs/telegrams.md "Size"), on loopback,
// PGlite unless NAMAZU_TEST_DATABASE_URL is set:
// - EEW delivery: an EEW (VXSE45) ingested in this process as a live source ingests it, to a
//   WebSocket client receiving it: p50/p99, alone (the reference) and while another process posts
//   JMA's 4 MB VPRN50 to POST /admin/v1/telegrams back to back; the longest event-loop stall of
//   each phase (perf_hooks monitorEventLoopDelay).
// - Memory: 20 telegrams of the maximum size (NAMAZU_MAX_TELEGRAM_BYTES, real VPRN50 content
//   repeated) posted at once by another process; the RSS growth of this process and the prepare
//   processes it started, against their total.
// Both phases run RUNS times, alternated; the figures are the medians of the runs.
// Usage: node --expose-gc --import tsx bench/large-telegram.ts [EEW rounds of the reference] [runs]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { fixture } from '../test/support/fixtures.ts';
import { startTestServer, type TestServer } from '../test/support/server.ts';
import { childrenOf, rss } from './proc.ts';
import { emitResult } from './result.ts';
import { median, percentile } from './stats.ts';

const ROUNDS = Number(process.argv[2] ?? 200);
/** Alternated runs of the two phases; the figures are their medians. */
const RUNS = Number(process.argv[3] ?? 3);
/** An EEW every this many ms during a phase. */
const EEW_EVERY_MS = 25;
const CONCURRENT = 20;
/** VPRN50 posted one after the other while EEWs are measured. */
const LARGE_POSTS = 16;
const LARGE = fixture('rest', '73_03_01_220210_VPRN50.xml');
const EEW_FILE = '77_01_01_240613_VXSE45.xml';
const MiB = 1024 * 1024;

const db = process.env.NAMAZU_TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const ms = (x: number) => `${x.toFixed(2)} ms`;

/**
 * The poster, run in another process so that its bytes and CPU are not this process's: posts
 * `count` distinct telegrams `concurrency` at a time, each VPRN50 grown to `size` bytes (its
 * MeteorologicalInfos repeated, the rest a comment) or left as it is (size 0).
 */
const POSTER = `
import { readFileSync } from 'node:fs';
const { URL_, KEY, FILE, COUNT, CONCURRENCY, SIZE } = process.env;
const base = readFileSync(FILE, 'utf8');
const open = base.indexOf('<MeteorologicalInfos'), close = base.lastIndexOf('</Body>');
function telegram(n) {
  const size = Number(SIZE), mark = '<!--' + n + '-->';
  if (size === 0) return Buffer.from(base.slice(0, close) + mark + base.slice(close));
  const block = base.slice(open, close), head = base.slice(0, close), tail = base.slice(close);
  const fixed = Buffer.byteLength(head + tail + mark) + 7;
  const repeat = Math.floor((size - fixed) / Buffer.byteLength(block)) - 1;
  let xml = head + block.repeat(repeat) + mark;
  const pad = size - Buffer.byteLength(xml + tail) - 7;
  xml += '<!--' + 'x'.repeat(pad) + '-->' + tail;
  return Buffer.from(xml);
}
telegram('warm-up');
// Ready: the process is up and its code warm. It starts posting on the first line of its input, so
// that starting a process is not part of the phase measured.
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.pause();
let next = 0, failed = 0;
const started = performance.now();
async function loop() {
  while (next < Number(COUNT)) {
    const body = telegram(next++ + '-' + process.pid);
    try {
      const res = await fetch(URL_ + '/admin/v1/telegrams?type=VPRN50', {
        method: 'POST', headers: { authorization: 'Basic ' + Buffer.from(KEY + ':').toString('base64'),
          'content-type': 'application/xml' }, body });
      if (res.status !== 200) { failed++; console.error(res.status, await res.text()); } else await res.arrayBuffer();
    } catch (err) {
      failed++;
      console.error(String(err.cause ?? err));
    }
  }
}
await Promise.all(Array.from({ length: Number(CONCURRENCY) }, loop));
process.stdout.write(JSON.stringify({ posted: next, failed, seconds: (performance.now() - started) / 1000 }) + '\\n');
`;

/** The poster, started and ready: `start` sets it posting; `done` settles when it has finished. */
async function poster(server: TestServer, key: string, count: number, concurrency: number, size: number) {
  const child = spawn('nice', ['-n', '19', process.execPath, '--input-type=module', '-e', POSTER], {
    env: {
      ...process.env,
      URL_: server.url,
      KEY: key,
      FILE: LARGE,
      COUNT: String(count),
      CONCURRENCY: String(concurrency),
      SIZE: String(size),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  const done = new Promise<{ posted: number; failed: number; seconds: number }>((resolve, reject) =>
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.slice(out.indexOf('\n') + 1)) as never)
        : reject(new Error(`poster exited with ${code}`)),
    ),
  );
  while (!out.includes('\n')) await sleep(5);
  return {
    pid: child.pid!,
    done,
    start() {
      child.stdin.end('go\n');
      return done;
    },
  };
}

/**
 * The RSS of this process and of the processes it started, the poster aside: the server's prepare
 * processes are part of its memory.
 */
function serverRss(poster: number): number {
  const started = childrenOf(process.pid).filter((pid) => pid !== poster);
  return started.reduce((bytes, pid) => bytes + rss(pid), process.memoryUsage.rss());
}

/** A WebSocket client of eew.forecast: when each telegram id arrived. */
async function subscribe(server: TestServer, key: string) {
  const res = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    body: JSON.stringify({ classifications: ['eew.forecast'], test: 'including' }),
  });
  const started = (await res.json()) as { websocket: { url: string } };
  const ws = new WebSocket(started.websocket.url, ['service.v2'], { perMessageDeflate: false });
  const arrived = new Map<string, number>();
  ws.on('message', (data: Buffer) => {
    const at = performance.now();
    const m = JSON.parse(data.toString()) as { type: string; id: string; pingId?: string };
    if (m.type === 'ping') ws.send(JSON.stringify({ type: 'pong', pingId: m.pingId }));
    if (m.type === 'data') arrived.set(m.id, at);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('message', () => resolve());
    ws.once('error', reject);
  });
  return { arrived, close: () => ws.close() };
}

const eew = readFileSync(fixture('official', EEW_FILE)).toString('utf8');
let eewCount = 0;
/** A distinct EEW (a comment makes it a telegram of its own). */
const nextEew = () => Buffer.from(eew.replace('</Report>', `<!--bench ${++eewCount}--></Report>`));

/**
 * EEWs every EEW_EVERY_MS until `rounds` were sent and `until` settled: their delivery latencies and
 * the loop's stalls.
 */
type Phase = Awaited<ReturnType<typeof eewPhase>>;

async function eewPhase(
  server: TestServer,
  client: { arrived: Map<string, number> },
  rounds: number,
  until: Promise<unknown> = Promise.resolve(),
) {
  let settled = false;
  void until.finally(() => (settled = true));
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const pending: Promise<number>[] = [];
  for (let i = 0; i < rounds || !settled; i++) {
    const raw = nextEew();
    const t0 = performance.now();
    pending.push(
      ingestTelegram(server.ctx, raw, { fileName: EEW_FILE, receivedTime: Date.now() }).then(async (o) => {
        if (!o.ok || o.stored.duplicate) throw new Error(`EEW not stored: ${JSON.stringify(o)}`);
        while (!client.arrived.has(o.stored.id)) await sleep(1);
        return client.arrived.get(o.stored.id)! - t0;
      }),
    );
    await sleep(EEW_EVERY_MS);
  }
  const latencies = await Promise.all(pending);
  loop.disable();
  return {
    eews: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    maxStall: loop.max / 1e6,
    stallP99: loop.percentile(99) / 1e6,
  };
}

async function main() {
  // The 20 concurrent uploads come from one address, and may take longer than the default 30 s to
  // arrive whole, or to be answered after the 60 s idle time-out, on a loaded machine: this
  // measures memory, not upload time.
  const server = await startTestServer({
    config: { maxUploadsPerAddress: CONCURRENT, requestTimeoutMs: 600_000, idleTimeoutMs: 600_000 },
  });
  const limit = server.ctx.config.maxTelegramBytes;
  try {
    const { account } = await server.createAccount({
      admin: true,
      contracts: ['eew.forecast', 'telegram.weather'],
    });
    const key = await server.createApiKey(account.id, [
      'admin.telegram.ingest',
      'socket.start',
      'eew.get.forecast',
    ]);
    const client = await subscribe(server, key);
    // Warm-up: code paths, the prepare worker, the database.
    await (await poster(server, key, 2, 1, 0)).start();
    await eewPhase(server, client, 20);

    // The two phases alternate, so that the machine's drifts touch both alike.
    const runs: { alone: Phase; beside: Phase; stored: number; secondsEach: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const alone = await eewPhase(server, client, ROUNDS);
      const posting = await poster(server, key, LARGE_POSTS, 1, 0);
      // From the first large telegram posted to the last stored, EEWs go on.
      const beside = await eewPhase(server, client, 0, posting.start());
      const { posted, failed, seconds } = await posting.done;
      runs.push({ alone, beside, stored: posted - failed, secondsEach: seconds / posted });
    }
    console.log(
      `EEW delivery (${EEW_FILE}, ingest in process → WebSocket client), one every ${EEW_EVERY_MS} ms, ${db}:`,
    );
    const line = (p: Phase) =>
      `p50 ${ms(p.p50)}  p99 ${ms(p.p99)}  loop: max stall ${ms(p.maxStall)}, p99 ${ms(p.stallP99)}`;
    for (const [i, { alone, beside, stored, secondsEach }] of runs.entries()) {
      console.log(`  run ${i + 1} alone (${alone.eews} EEWs)   ${line(alone)}`);
      console.log(
        `  run ${i + 1} beside (${beside.eews} EEWs)  ${line(beside)}  (${stored} VPRN50 stored, ${secondsEach.toFixed(2)} s each)`,
      );
    }
    const addedP99 = median(runs.map((r) => r.beside.p99 - r.alone.p99));
    const besideMaxStall = median(runs.map((r) => r.beside.maxStall));
    const aloneMaxStall = median(runs.map((r) => r.alone.maxStall));
    console.log(
      `  medians of ${RUNS} runs: added p99 ${ms(addedP99)} (target ≤ 5 ms); longest stall beside ${ms(besideMaxStall)}, alone ${ms(aloneMaxStall)} (target ≤ 20 ms)`,
    );

    // Memory: 20 maximum-size telegrams at once.
    await sleep(500);
    (globalThis as { gc?: () => void }).gc?.();
    const burster = await poster(server, key, CONCURRENT, CONCURRENT, limit);
    const baseline = serverRss(burster.pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, serverRss(burster.pid))), 10);
    const burst = await burster.start();
    clearInterval(sampler);
    const total = CONCURRENT * limit;
    const growth = peak - baseline;
    console.log(
      `${CONCURRENT} concurrent ingests of ${(limit / MiB).toFixed(0)} MiB (${(total / MiB).toFixed(0)} MiB in all): ` +
        `RSS +${(growth / MiB).toFixed(0)} MiB at peak = ${(growth / total).toFixed(2)}× their size (target ≤ 5×); ` +
        `${burst.posted - burst.failed} stored in ${burst.seconds.toFixed(1)} s, ${burst.failed} failed`,
    );
    emitResult('large-telegram', {
      rounds: ROUNDS,
      database: db,
      runs,
      addedP99,
      besideMaxStall,
      aloneMaxStall,
      rssGrowthBytes: growth,
      rssGrowthRatio: growth / total,
      concurrentFailed: burst.failed,
    });
    client.close();
  } finally {
    await server.close();
  }
}

await main();
