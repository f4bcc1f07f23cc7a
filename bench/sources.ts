// Figures of the network sources (docs/sources.md "Figures"), on loopback, PGlite unless
// NAMAZU_TEST_DATABASE_URL is set:
// - JMA feed: from an entry appearing in a local feed to a WebSocket client receiving it. The wait
//   for the next poll is uniform over the interval, so the delay with the default interval is that
//   wait plus what is measured here: a poll (Atom + XML fetch + ingest) and the delivery.
// - Upstream relay: added latency, upstream `data` → downstream `data`, both clients in this process.
// - Recovery: from the restarted upstream listening to the downstream client having a telegram
//   stored upstream while it was down (default reconnection backoff).
// Usage: node --import tsx bench/sources.ts [relay rounds]
import { readFileSync } from 'node:fs';
import { createTestDatabase } from '../test/support/database.ts';
import { fixtureIndex } from '../test/support/fixtures.ts';
import { startTestServer } from '../test/support/server.ts';
import { waitFor } from '../test/support/wait.ts';
import { freePort, quake } from '../test/multinode/support.ts';
import { REAL, startFeedServer } from '../test/sources/feed-server.ts';
import {
  ingestInto,
  ingestWhileDown,
  relayKey,
  relayPositioned,
  startRelay,
  startUpstream,
  subscribe,
} from '../test/sources/relay-support.ts';
import { defaults } from '../src/config.ts';
import { JmaFeedSource } from '../src/sources/jma-feed.ts';
import { emitResult } from './result.ts';
import { percentile } from './stats.ts';

const relayRounds = Number(process.argv[2] ?? 200);
const ms = (x: number) => `${x.toFixed(2)} ms`;

async function feedFigures() {
  const files = fixtureIndex()
    .filter((f) => f.path.startsWith(REAL) && f.classification === 'telegram.earthquake')
    .map((f) => f.file)
    .sort();
  const feed = await startFeedServer();
  const server = await startTestServer();
  const client = await subscribe(server);
  const source = new JmaFeedSource(server.ctx, {
    urls: [feed.feedUrl],
    intervalMs: defaults().jmaFeedIntervalMs,
  });
  const delays: number[] = [];
  try {
    await source.pollOnce(); // empty feed: takes the position
    for (const file of files) {
      const t0 = performance.now();
      feed.entries = [...feed.entries, file];
      await source.pollOnce();
      const body = readFileSync(`${REAL}/${file}`);
      const got = await waitFor(() => client.received.find((r) => r.xml.equals(body)), { timeout: 30_000 });
      delays.push(got.receivedAt - t0);
    }
  } finally {
    client.close();
    await source.stop();
    await server.close();
    await feed.close();
  }
  const interval = defaults().jmaFeedIntervalMs;
  const p50 = percentile(delays, 50);
  const p99 = percentile(delays, 99);
  console.log(`JMA feed, ${delays.length} entries: poll + ingest + delivery p50 ${ms(p50)}, p99 ${ms(p99)}`);
  console.log(
    `  with the default ${interval / 1000} s interval: entry → client = wait for the poll (uniform 0–${interval / 1000} s) + that:` +
      ` mean ${((interval / 2 + p50) / 1000).toFixed(2)} s, worst ${((interval + p99) / 1000).toFixed(2)} s`,
  );
  emitResult('sources-feed', { entries: delays.length, p50, p99, intervalMs: interval });
}

async function relayFigures() {
  const upstreamDb = await createTestDatabase();
  const port = await freePort();
  let upstream = await startUpstream(upstreamDb, port);
  const downstream = await startTestServer();
  const relay = startRelay(downstream, {
    url: upstream.url,
    credential: { apiKey: await relayKey(upstream) },
    connections: 1,
    retryBaseMs: 1000,
  });
  await relayPositioned(downstream);
  const up = await subscribe(upstream);
  const down = await subscribe(downstream);
  const added: number[] = [];
  const recovery: number[] = [];
  try {
    for (let i = 0; i < relayRounds; i++) {
      const body = quake(`bench-${i}-${Date.now()}`);
      await ingestInto(upstream, [body]);
      const a = await waitFor(() => up.received.find((r) => r.xml.equals(body)), { timeout: 30_000 });
      const b = await waitFor(() => down.received.find((r) => r.xml.equals(body)), { timeout: 30_000 });
      added.push(b.receivedAt - a.receivedAt);
    }
    up.close();
    for (let i = 0; i < 5; i++) {
      await upstream.close();
      const missed = quake(`bench-missed-${i}-${Date.now()}`);
      await ingestWhileDown(upstreamDb, [missed]);
      upstream = await startUpstream(upstreamDb, port);
      const listening = performance.now();
      const got = await waitFor(() => down.received.find((r) => r.xml.equals(missed)), { timeout: 120_000 });
      recovery.push(got.receivedAt - listening);
    }
  } finally {
    down.close();
    await relay.stop();
    await downstream.close();
    await upstream.close();
    await upstreamDb.drop();
  }
  const p50 = percentile(added, 50);
  const p99 = percentile(added, 99);
  console.log(
    `upstream relay, ${added.length} telegrams: added latency p50 ${ms(p50)}, p99 ${ms(p99)} (target ≤ 5 ms p50)`,
  );
  console.log(
    `  recovery after an upstream restart, ${recovery.length} runs: ${recovery.map((r) => ms(r)).join(', ')}`,
  );
  emitResult('sources-relay', { telegrams: added.length, p50, p99, recoveryMs: recovery });
}

await feedFigures();
await relayFigures();
