/**
 * Resume across processes: `namazu serve --workers 2` on the PostgreSQL and the Redis bus, telegrams
 * ingested by a third process, and a socket and a stream dropped at random points of the burst that
 * reconnect (to either worker) from the last id they handled: every telegram exactly once, in order.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { openBus } from '../../src/bus/open.ts';
import { openDb } from '../../src/db/open.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { createTestDatabase } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';
import { account, auth, busSkip, redisUrl, serveWorkers } from '../support/processes.ts';
import { SseClient } from '../support/sse.ts';
import { waitFor } from '../support/wait.ts';

const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));
const TOTAL = 40;

/** One socket until `limit` telegrams arrived (or everything did): the ids it received. */
function socketSession(url: string, received: string[], limit: number, total: number): Promise<void> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.on('error', () => {});
  let count = 0;
  return new Promise((resolve, reject) => {
    // Nothing for this long while telegrams are missing: a gap (the test fails instead of hanging).
    const silent = () => reject(new Error(`no telegram for 20 s after ${received.length}`));
    let silence = setTimeout(silent, 20_000);
    const done = () => {
      clearTimeout(silence);
      ws.terminate();
      resolve();
    };
    // Only a telegram counts as one: pings would otherwise hide a gap.
    ws.on('message', (m) => {
      if ((JSON.parse(m.toString()) as { type: string }).type !== 'data') return;
      clearTimeout(silence);
      silence = setTimeout(silent, 20_000);
    });
    ws.on('message', (m) => {
      const msg = JSON.parse(m.toString()) as { type: string; id?: string; pingId?: string };
      if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
      if (msg.type === 'data') {
        received.push(msg.id!);
        count++;
      }
      if (count >= limit || received.length >= total) done();
    });
    ws.on('close', done);
  });
}

for (const bus of ['postgres', 'redis'] as const) {
  const skip = busSkip(bus);
  test(
    `${bus} bus, two workers: a socket and a stream resume after random drops, every telegram once, in order`,
    { skip },
    async () => {
      const database = await createTestDatabase();
      const databaseUrl = database.databaseUrl!;
      const cluster = await serveWorkers(databaseUrl, database.dataDir, bus);
      const db = await openDb({ databaseUrl, dataDir: database.dataDir, poolSize: 2 });
      const ingestBus = await openBus({ bus, databaseUrl, redisUrl });
      try {
        const key = await account(databaseUrl, database.dataDir, ['eew.forecast', 'websocket.plus5']);
        const start = async (after?: string) => {
          const r = await fetch(`${cluster.url}/v2/socket`, {
            method: 'POST',
            headers: auth(key),
            body: JSON.stringify({ classifications: ['eew.forecast'], ...(after ? { after } : {}) }),
          });
          assert.equal(r.status, 200);
          return ((await r.json()) as { websocket: { url: string } }).websocket.url;
        };
        const base = `${cluster.url}/v2/stream?classifications=eew.forecast`;
        // The newest telegram before the burst: a client dropped before its first telegram
        // resumes after this one, as a client that read the list first would.
        const origin = await ingestTelegram(
          { db, bus: ingestBus },
          Buffer.concat([EEW, Buffer.from('\n<!-- cluster resume origin -->\n')]),
          { fileName: '77_01_03_240613_VXSE45.xml', receivedTime: Date.now() },
        );
        assert.ok(origin.ok);
        const originId = origin.stored.id;
        // Both open before the burst, so that each is owed every telegram of it.
        // The socket's ticket is redeemed after the burst has begun: it resumes after the origin too.
        const firstSocket = await start(originId);
        let stream = new SseClient(`${base}&after=${originId}`, auth(key));
        assert.equal(await stream.opened, 200);

        const sent: string[] = [];
        // Awaited with the clients, so that a failed ingest fails the test at once.
        const burst = (async () => {
          for (let i = 1; i <= TOTAL; i++) {
            const raw = Buffer.concat([EEW, Buffer.from(`\n<!-- cluster resume ${i} -->\n`)]);
            const out = await ingestTelegram({ db, bus: ingestBus }, raw, {
              fileName: '77_01_03_240613_VXSE45.xml',
              receivedTime: Date.now(),
            });
            assert.ok(out.ok);
            sent.push(out.stored.id);
            await new Promise((r) => setTimeout(r, Math.random() * 20));
          }
        })();

        burst.catch(() => {});
        const bySocket: string[] = [];
        const socketDone = (async () => {
          let url = firstSocket;
          while (bySocket.length < TOTAL) {
            await socketSession(url, bySocket, Math.floor(Math.random() * 6), TOTAL);
            if (bySocket.length < TOTAL) url = await start(bySocket.at(-1) ?? originId);
          }
        })();

        const byStream: string[] = [];
        for (let drops = 0; byStream.length < TOTAL; drops++) {
          if (drops > 0) {
            const last = byStream.at(-1) ?? originId;
            stream = new SseClient(drops % 2 === 0 ? `${base}&after=${last}` : base, {
              ...auth(key),
              ...(drops % 2 === 1 ? { 'last-event-id': last } : {}),
            });
            assert.equal(await stream.opened, 200);
          }
          const limit = Math.floor(Math.random() * 6);
          const client = stream;
          await waitFor(
            () => client.data().length >= limit || byStream.length + client.data().length >= TOTAL,
            {
              timeout: 20_000,
              message: `telegrams after ${byStream.length}`,
            },
          );
          client.abort();
          await client.ended;
          for (const m of client.data<{ id: string }>()) byStream.push(m.id);
        }
        await burst;
        await socketDone;
        assert.deepEqual(bySocket, sent, 'socket: every telegram once, in order');
        assert.deepEqual(byStream, sent, 'stream: every telegram once, in order');
      } finally {
        await ingestBus.close();
        await db.close();
        await cluster.stop();
        await database.drop();
      }
    },
  );
}
