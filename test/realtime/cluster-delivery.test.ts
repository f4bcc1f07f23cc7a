/**
 * Delivery across processes: telegrams ingested by another process reach the subscribers of every
 * worker of `namazu serve --workers 2` exactly once and in order, over the PostgreSQL and the
 * Redis bus — also while one worker is killed mid-stream.
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
import { waitFor } from '../support/wait.ts';

const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));
const TOTAL = 30;
const KILL_AFTER = 10;

/** A subscriber that records the ids of the telegrams it receives and how it was closed. */
function subscriber(url: string) {
  const ids: string[] = [];
  let closeCode: number | null = null;
  const ws = new WebSocket(url);
  ws.on('error', () => {});
  const started = new Promise<void>((resolve) =>
    ws.once('message', (d) => {
      assert.equal(JSON.parse(d.toString()).type, 'start');
      ws.on('message', (m) => {
        const msg = JSON.parse(m.toString()) as { type: string; id?: string; pingId?: string };
        if (msg.type === 'data') ids.push(msg.id!);
        if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
      });
      resolve();
    }),
  );
  ws.on('close', (code) => (closeCode = code));
  return { ws, ids, started, closed: () => closeCode };
}

function workerPids(primary: number): number[] {
  return readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/).map(Number);
}

for (const bus of ['postgres', 'redis'] as const) {
  const skip = busSkip(bus);
  test(
    `${bus} bus: every subscriber on every worker gets each telegram once, in order, with a worker killed mid-stream`,
    { skip },
    async () => {
      const database = await createTestDatabase();
      const databaseUrl = database.databaseUrl!;
      const cluster = await serveWorkers(databaseUrl, database.dataDir, bus);
      const db = await openDb({ databaseUrl, dataDir: database.dataDir, poolSize: 2 });
      const ingestBus = await openBus({ bus, databaseUrl, redisUrl });
      try {
        const key = await account(databaseUrl, database.dataDir, ['eew.forecast', 'websocket.plus5']);
        const subs: ReturnType<typeof subscriber>[] = [];
        for (let i = 0; i < 6; i++) {
          const r = await fetch(`${cluster.url}/v2/socket`, {
            method: 'POST',
            headers: auth(key),
            body: JSON.stringify({ classifications: ['eew.forecast'] }),
          });
          const sub = subscriber(((await r.json()) as { websocket: { url: string } }).websocket.url);
          await sub.started;
          subs.push(sub);
        }
        const sent: string[] = [];
        for (let i = 1; i <= TOTAL; i++) {
          const raw = Buffer.concat([EEW, Buffer.from(`\n<!-- stream ${i} -->\n`)]);
          const out = await ingestTelegram({ db, bus: ingestBus }, raw, {
            fileName: '77_01_03_240613_VXSE45.xml',
            receivedTime: Date.now(),
          });
          assert.ok(out.ok);
          sent.push(out.stored.id);
          if (i === KILL_AFTER) {
            // Let the first telegrams arrive everywhere, then kill one worker without warning.
            await waitFor(() => subs.every((s) => s.ids.length >= KILL_AFTER), {
              timeout: 10_000,
              message: 'the first telegrams on every connection',
            });
            process.kill(workerPids(cluster.child.pid!)[0]!, 'SIGKILL');
          }
        }
        await waitFor(() => subs.every((s) => s.closed() !== null || s.ids.length >= TOTAL), {
          timeout: 20_000,
          message: 'every live connection to receive every telegram',
        });

        const cut = subs.filter((s) => s.closed() !== null);
        const alive = subs.filter((s) => s.closed() === null);
        assert.ok(cut.length > 0, 'the killed worker held some of the connections');
        assert.ok(alive.length > 0, 'the other worker held the rest');
        for (const s of alive) assert.deepEqual(s.ids, sent, 'all telegrams, once each, in order');
        for (const s of cut) {
          assert.equal(s.closed(), 1006);
          assert.ok(s.ids.length >= KILL_AFTER);
          assert.deepEqual(s.ids, sent.slice(0, s.ids.length), 'a prefix: once each, in order');
        }
        for (const s of alive) s.ws.close(1000);
      } finally {
        await ingestBus.close();
        await db.close();
        await cluster.stop();
        await database.drop();
      }
    },
  );
}
