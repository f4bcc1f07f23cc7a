// The sources' and connections' rows of bench/attacks.ts (docs/security.md "Figures"), run by it
// with its helpers: idle keep-alive connections (one request each, then quiet until the server
// closes them), and a relay whose upstream is hostile (finding 6: gzip bombs, a list answer that
// never ends, pages that never end), while /healthz is probed and the server's RSS sampled.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { WebSocketServer } from 'ws';
import { defaults } from '../src/config.ts';
import { emitResult } from './result.ts';
import { median } from './stats.ts';

interface Namazu {
  origin: string;
  stop(): Promise<void>;
}

interface Figures {
  rssGrowthMiB: number;
  healthzP99: number;
  serverCpuShare: number;
  closedMedianMs: number;
  closedMaxMs: number;
}

export interface AttackKit {
  runs: number;
  dataDir: string;
  startNamazu(dataDir: string, env?: Record<string, string>): Promise<Namazu>;
  underAttack(namazu: Namazu, attack: () => Promise<number[]>): Promise<Figures>;
}

const MiB = 1024 * 1024;
const config = defaults();
/** How long the hostile upstream keeps the relay busy per run. */
const HOSTILE_MS = 20_000;

export async function sourceAttackFigures(kit: AttackKit): Promise<void> {
  await idleKeepAliveFigures(kit);
  await hostileUpstreamFigures(kit);
}

/**
 * 1,000 connections each send one request, read the answer and stay quiet until closed; each is
 * timed from its answer, when the keep-alive time starts.
 */
async function idleKeepAliveFigures(kit: AttackKit): Promise<void> {
  const bound = config.keepAliveTimeoutMs + 1000; // Node adds one second to the keep-alive time
  const results: Figures[] = [];
  for (let run = 0; run < kit.runs; run++) {
    const namazu = await kit.startNamazu(kit.dataDir);
    try {
      results.push(
        await kit.underAttack(namazu, () =>
          Promise.all(Array.from({ length: 1000 }, () => idleAfterAnswer(namazu.origin, bound + 30_000))),
        ),
      );
    } finally {
      await namazu.stop();
    }
  }
  report(
    '1,000 idle keep-alive connections (one request each, then quiet)',
    results,
    bound + 1000,
    `keep-alive ${config.keepAliveTimeoutMs / 1000} s + Node's 1 s after the answer (+ 1 s)`,
  );
}

/** One GET /healthz on a new connection, then quiet: the time from its answer until the server closes it. */
function idleAfterAnswer(origin: string, giveUpMs: number): Promise<number> {
  return new Promise((resolve) => {
    let answeredAt = NaN;
    const socket = connect(Number(new URL(origin).port), '127.0.0.1');
    socket.on('data', () => (answeredAt = Number.isNaN(answeredAt) ? performance.now() : answeredAt));
    socket.on('error', () => {});
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve(performance.now() - answeredAt);
    });
    socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
  });
}

/**
 * A relay (NAMAZU_SOURCES=upstream) on an upstream that grants sockets, says `start` (each start
 * begins a catch-up), closes them after 2 s (the relay reconnects within a second) and answers
 * each catch-up in turn with a gzip bomb body, a list that never ends, and pages that never end.
 */
async function hostileUpstreamFigures(kit: AttackKit): Promise<void> {
  const upstream = await startHostileUpstream();
  const results: Figures[] = [];
  try {
    for (let run = 0; run < kit.runs; run++) {
      const namazu = await kit.startNamazu(kit.dataDir, {
        NAMAZU_SOURCES: 'upstream',
        NAMAZU_UPSTREAM_URL: upstream.origin,
        NAMAZU_UPSTREAM_API_KEY: 'bench-upstream-key',
        NAMAZU_UPSTREAM_CLASSIFICATIONS: 'telegram.earthquake',
      });
      try {
        results.push(
          await kit.underAttack(namazu, async () => {
            await new Promise((resolve) => setTimeout(resolve, HOSTILE_MS));
            return [];
          }),
        );
      } finally {
        await namazu.stop();
      }
    }
  } finally {
    await upstream.close();
  }
  console.log(
    `hostile upstream, served over ${kit.runs} run(s): ${upstream.served.bombs} gzip bombs of 1 GiB, ` +
      `${(upstream.served.listBytes / MiB).toFixed(0)} MiB of never-ending lists, ${upstream.served.pages} never-ending pages`,
  );
  report(
    `relay on a hostile upstream for ${HOSTILE_MS / 1000} s (gzip bombs, endless list, endless pages)`,
    results,
  );
}

function report(name: string, results: Figures[], boundMs?: number, bound?: string): void {
  const figures = {
    rssGrowthMiB: median(results.map((r) => r.rssGrowthMiB)),
    healthzP99: median(results.map((r) => r.healthzP99)),
    serverCpuShare: median(results.map((r) => r.serverCpuShare)),
    ...(boundMs !== undefined
      ? {
          closedMedianMs: median(results.map((r) => r.closedMedianMs)),
          closedMaxMs: Math.max(...results.map((r) => r.closedMaxMs)),
        }
      : {}),
  };
  const closedInTime = boundMs === undefined ? undefined : figures.closedMaxMs! <= boundMs;
  emitResult('attacks', { case: name, runs: results.length, ...figures, timeoutMs: boundMs, closedInTime });
  console.log(
    `${name} (median of ${results.length}): RSS +${figures.rssGrowthMiB.toFixed(1)} MiB, ` +
      `/healthz p99 ${figures.healthzP99.toFixed(1)} ms, server CPU ${(figures.serverCpuShare * 100).toFixed(0)} % of a core` +
      (boundMs !== undefined
        ? `; connections closed after ${(figures.closedMedianMs! / 1000).toFixed(2)} s (median), ` +
          `${(figures.closedMaxMs! / 1000).toFixed(2)} s (latest) — ${bound}: ${closedInTime ? 'every one within it' : 'NOT all within it'}`
        : ''),
  );
}

async function startHostileUpstream() {
  const member = gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: 16 }, () => member)); // 1 GiB of zeros
  const served = { bombs: 0, listBytes: 0, pages: 0 };
  let catchUps = 0;
  let host = '';
  const item = (id: string, path: string, classification = 'telegram.earthquake') => ({
    id,
    classification,
    head: { type: 'VXSE53', author: 'JPOS', time: '2026-11-23T00:00:00Z', designation: null, test: false },
    format: 'xml',
    url: `${host}${path}`,
  });
  const json = (res: ServerResponse, body: unknown) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, host);
    if (req.method === 'POST' && url.pathname === '/v2/socket') {
      req.resume();
      return json(res, {
        status: 'ok',
        websocket: { id: 1, url: `ws${host.slice(4)}/socket`, protocol: ['service.v2'] },
      });
    }
    if (url.pathname === '/v1/bomb') {
      served.bombs++;
      return res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' }).end(bomb);
    }
    if (url.pathname !== '/v2/telegram') return res.writeHead(404).end();
    const cursor = url.searchParams.get('cursorToken');
    // The first start of a relay only takes its position.
    if (cursor === null) return json(res, { status: 'ok', items: [], nextPooling: 'c0' });
    const mode = catchUps % 3;
    if (mode === 0)
      return json(res, { status: 'ok', items: [item(`b${catchUps}`, '/v1/bomb')], nextPooling: 'c0' });
    if (mode === 1) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"ok","items":[');
      const chunk = Buffer.alloc(MiB, 0x20);
      let sent = 0;
      const push = () => {
        while (!res.destroyed && sent < 600) {
          sent++;
          served.listBytes += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', push);
        }
        res.end();
      };
      return push();
    }
    served.pages++;
    const items = Array.from({ length: 100 }, (_, i) =>
      item(`p${served.pages}-${i}`, '/v1/x', 'telegram.volcano'),
    );
    return json(res, { status: 'ok', items, nextPooling: `c${served.pages}` });
  });
  const wss = new WebSocketServer({ server, path: '/socket' });
  wss.on('connection', (ws) => {
    catchUps++; // each connection's `start` begins a catch-up
    ws.on('error', () => {});
    ws.send(JSON.stringify({ type: 'start', socketId: 1, classifications: ['telegram.earthquake'] }));
    setTimeout(() => ws.close(1000), 2000);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin: host,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
