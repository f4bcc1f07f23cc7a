// The HTTP client of webhook delivery: Node's `http` against undici (src/webhooks/sender.ts uses
// undici), posting the same 1,000 bodies of 3,000 bytes to the same local receivers
// (bench/webhook-receiver.ts, a process of their own, 50 loopback addresses), 128 at once and at most
// 32 connections to a host, kept alive from round to round, as the sender posts. Figure: the 500th
// arrival (p50) and the last, from the loop's start; rounds alternate which client goes first, and
// the first two of each are not counted.
//
//   node --import tsx bench/webhook-client.ts [--rounds 12]
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { MAX_ATTEMPTS_IN_FLIGHT, MAX_ATTEMPTS_PER_HOST } from '../src/webhooks/service.ts';
import { emitResult } from './result.ts';
import { httpPost, postAll, startReceivers } from './webhook-receivers.ts';
import { median } from './stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '12' } } });
const ROUNDS = Number(values.rounds);
const POSTS = 1000;
const HOSTS = 50;
const WARM = 2;

const receivers = await startReceivers(HOSTS);
const now = () => performance.timeOrigin + performance.now();
const urls = Array.from(
  { length: POSTS },
  (_, i) => `http://127.0.0.${1 + (Math.floor(i / 20) % HOSTS)}:${receivers.port}/hook`,
);
const body = Buffer.alloc(3000, 97);

const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_ATTEMPTS_PER_HOST });
const dispatcher = new Agent({ connections: MAX_ATTEMPTS_PER_HOST, keepAliveTimeout: 30_000 });
const postWithUndici = async (url: string) => {
  const res = await request(url, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json' },
    body,
  });
  await res.body.dump();
};

/** One round: every post, at most MAX_ATTEMPTS_IN_FLIGHT at once; arrivals from the loop's start. */
async function round(post: (url: string) => Promise<void>): Promise<{ p50: number; last: number }> {
  const started = now();
  await postAll(POSTS, urls, post);
  const got = (await receivers.arrivals(POSTS)).map((t) => t - started).sort((a, b) => a - b);
  return { p50: got[POSTS / 2 - 1]!, last: got[POSTS - 1]! };
}

const clients = { 'node:http': httpPost(agent, body), undici: postWithUndici };
const results: Record<string, { p50: number; last: number }[]> = { 'node:http': [], undici: [] };
for (let r = 0; r < ROUNDS + WARM; r++) {
  const order = r % 2 === 0 ? (['undici', 'node:http'] as const) : (['node:http', 'undici'] as const);
  for (const name of order) {
    const figures = await round(clients[name]);
    if (r >= WARM) results[name]!.push(figures);
    await sleep(100);
  }
}
const summary = Object.fromEntries(
  Object.entries(results).map(([name, rs]) => [
    name,
    { p50: median(rs.map((r) => r.p50)), last: median(rs.map((r) => r.last)) },
  ]),
);
console.log(
  `${POSTS} posts of ${body.length} bytes to ${HOSTS} local receivers, ${MAX_ATTEMPTS_IN_FLIGHT} at once (median of ${ROUNDS} rounds):`,
);
for (const [name, s] of Object.entries(summary))
  console.log(`  ${name.padEnd(9)} p50 ${s.p50.toFixed(1)} ms  last ${s.last.toFixed(1)} ms`);
console.log(`  undici / node:http, p50: ${(summary.undici!.p50 / summary['node:http']!.p50).toFixed(2)}×`);
emitResult('webhook-client', { posts: POSTS, hosts: HOSTS, rounds: ROUNDS, ...summary });
await agent.destroy();
await dispatcher.close();
receivers.stop();
