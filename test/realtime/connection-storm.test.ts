/**
 * A connection storm (docs/operations.md "A connection storm"): 300 clients start a socket and connect at
 * once, as after a node restart, while telegrams keep coming to sockets already open. Every one of
 * the storm is admitted; the open sockets get every telegram once, in order, none of them held
 * back by the storm on PostgreSQL for more than the bound below.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setConnectionLimit } from '../../src/accounts/connection-limit.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { quake, StreamSocket } from '../multinode/support.ts';
import { testDatabaseUrl } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const STORM = 300;
const LIVE = 10;
/**
 * Longest a telegram may take from its ingest to the open sockets while the storm is admitted, on
 * PostgreSQL. Sessions that took every pooled connection held telegrams for the whole storm (7.6 s);
 * admitted in batches per account, a telegram waits 0.26–0.34 s on a quiet machine (the storm's
 * clients run in this process too), and up to about a second more while CI runs the other suite
 * beside this one: the bound sits between. The embedded database runs
 * one statement at a time, the storm's among them (docs/operations.md "A connection storm"): there
 * the figure is printed, not bounded.
 */
const STARVATION_BOUND_MS = 3000;
const CLASSES = ['telegram.earthquake'];

let server: TestServer;
let key: string;
before(async () => {
  server = await startTestServer();
  const { account } = await server.createAccount({ contracts: CLASSES });
  await setConnectionLimit(server.ctx.db, account.id, STORM + LIVE);
  key = await server.createApiKey(account.id, ['socket.start', 'telegram.get.earthquake']);
});
after(() => server.close());

async function openSocket(): Promise<StreamSocket> {
  const res = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    body: JSON.stringify({ classifications: CLASSES }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const socket = new StreamSocket(((await res.json()) as { websocket: { url: string } }).websocket.url);
  await socket.started;
  return socket;
}

test(`${STORM} clients connecting at once are all admitted; open sockets keep getting every telegram`, async () => {
  const live: StreamSocket[] = [];
  const storm: StreamSocket[] = [];
  try {
    for (let i = 0; i < LIVE; i++) live.push(await openSocket());
    const sent: { id: string; at: number }[] = [];
    let storming = true;
    const ticker = (async () => {
      for (let i = 0; storming || i < 5; i++) {
        // From before the ingest: a storm that held the database from ingest would count too.
        const at = performance.now();
        const out = await ingestTelegram(
          { db: server.ctx.db, bus: server.ctx.bus, telegrams: server.ctx.telegrams },
          quake(`storm ${i}`),
          {
            receivedTime: Date.now(),
          },
        );
        assert.ok(out.ok);
        sent.push({ id: out.stored.id, at });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const started = performance.now();
    const opened = await Promise.allSettled(Array.from({ length: STORM }, () => openSocket()));
    const stormMs = performance.now() - started;
    storming = false;
    for (const o of opened) if (o.status === 'fulfilled') storm.push(o.value);
    const refused = opened.filter((o) => o.status === 'rejected');
    assert.equal(
      refused.length,
      0,
      `every client of the storm admitted: ${String((refused[0] as PromiseRejectedResult)?.reason)}`,
    );
    await ticker;

    const ids = sent.map((s) => s.id);
    await waitFor(() => live.every((s) => s.ids.length >= ids.length), {
      timeout: 20_000,
      message: 'every telegram on every open socket',
    });
    let worst = 0;
    for (const [i, s] of live.entries()) {
      assert.deepEqual(s.ids, ids, `open socket ${i}: every telegram once, in order`);
      for (const { id, at } of sent) worst = Math.max(worst, s.receivedAt.get(id)! - at);
    }
    console.log(
      `storm of ${STORM} admitted in ${stormMs.toFixed(0)} ms; ${ids.length} telegrams meanwhile, slowest to an open socket ${worst.toFixed(0)} ms`,
    );
    if (testDatabaseUrl)
      assert.ok(
        worst < STARVATION_BOUND_MS,
        `no telegram held back by the storm (slowest ${worst.toFixed(0)} ms)`,
      );
  } finally {
    for (const s of [...live, ...storm]) s.close();
  }
});
