/**
 * A plus contract removed with `namazu contract remove` while an account's sockets are spread over
 * two server processes (`namazu serve --workers 2` on one PostgreSQL database): both hear the
 * announcement, one decides which sessions go, and each closes those it holds with 4409. Exactly the
 * excess closes, each once; the socket that stays keeps receiving. Needs NAMAZU_TEST_DATABASE_URL
 * (and NAMAZU_TEST_REDIS_URL for the Redis bus).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { openDb } from '../../src/db/open.ts';
import { quake, runNamazu, tempDir, waitFor } from '../multinode/support.ts';
import { createTestDatabase } from '../support/database.ts';
import { account, auth, busSkip, redisUrl, serveWorkers } from '../support/processes.ts';

interface Message {
  type: string;
  code?: number;
  error?: string;
}

/** A socket that answers pings and records every other message and how it closed. */
class RecordingSocket {
  readonly messages: Message[] = [];
  closeCode: number | null = null;
  readonly started: Promise<void>;

  constructor(readonly ws: WebSocket) {
    ws.on('error', () => {});
    this.started = new Promise((resolve, reject) => {
      ws.once('close', (code) => reject(new Error(`closed with ${code} before start`)));
      ws.on('message', (raw) => {
        const message = JSON.parse(raw.toString()) as Message & { pingId?: string };
        if (message.type === 'ping') ws.send(JSON.stringify({ type: 'pong', pingId: message.pingId }));
        else this.messages.push(message);
        if (message.type === 'start') resolve();
      });
    });
    ws.on('close', (code) => (this.closeCode = code));
  }
}

for (const bus of ['postgres', 'redis'] as const) {
  const skip = busSkip(bus);
  test(
    `two processes, ${bus} bus: websocket.plus5 removed by the CLI closes exactly the 5 sockets beyond the limit, once each, with 4409`,
    { skip },
    async () => {
      const database = await createTestDatabase();
      const databaseUrl = database.databaseUrl!;
      const cluster = await serveWorkers(databaseUrl, database.dataDir, bus);
      const files = tempDir('namazu-limit-cluster-');
      const sockets: { id: number; socket: RecordingSocket }[] = [];
      try {
        // telegram.earthquake and websocket.plus5: a limit of 6, all taken.
        const key = await account(databaseUrl, database.dataDir, ['telegram.earthquake', 'websocket.plus5']);
        for (let i = 0; i < 6; i++) {
          const r = await fetch(`${cluster.url}/v2/socket`, {
            method: 'POST',
            headers: auth(key),
            body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
          });
          assert.equal(r.status, 200);
          const { websocket } = (await r.json()) as { websocket: { id: number; url: string } };
          const socket = new RecordingSocket(new WebSocket(websocket.url, { perMessageDeflate: false }));
          await socket.started;
          sockets.push({ id: websocket.id, socket });
        }
        const listed = (await (await fetch(`${cluster.url}/v2/socket`, { headers: auth(key) })).json()) as {
          items: { server: string }[];
        };
        assert.equal(new Set(listed.items.map((s) => s.server)).size, 2, 'the sockets are on both processes');

        const db = await openDb({ databaseUrl, dataDir: database.dataDir, poolSize: 1 });
        const env = {
          NAMAZU_DATABASE_URL: databaseUrl,
          NAMAZU_BUS: bus,
          ...(redisUrl ? { NAMAZU_REDIS_URL: redisUrl } : {}),
        };
        try {
          const [owner] = await db.query<{ email: string }>('SELECT email FROM accounts');
          const removed = await runNamazu(
            ['contract', 'remove', '--account', owner!.email, '--plan', 'websocket.plus5'],
            env,
          );
          assert.equal(removed.code, 0, removed.stderr);

          // The ping interval is 30 s: the announcement, not the upkeep, closes them.
          const beyond = sockets.slice(1);
          await waitFor(
            'the 5 sockets beyond the limit to close',
            () => beyond.every((s) => s.socket.closeCode),
            5000,
          );
          for (const { socket } of beyond) {
            assert.equal(socket.closeCode, 4409);
            assert.deepEqual(
              socket.messages.filter((m) => m.type === 'error'),
              [
                {
                  type: 'error',
                  error: 'The connection limit of the account went down; this connection is beyond it.',
                  code: 4409,
                  close: true,
                },
              ],
            );
          }
          const [first] = sockets;
          assert.equal(first!.socket.closeCode, null, 'the first socket opened stays');

          const rows = await db.query<{ id: number; status: string; close_code: number | null }>(
            'SELECT id, status, close_code FROM socket_sessions ORDER BY id',
          );
          assert.deepEqual(
            rows.map((r) => [Number(r.id), r.status, r.close_code]),
            sockets.map(({ id }, i) => (i === 0 ? [id, 'open', null] : [id, 'closed', 4409])),
          );
          // The limit is 1 and taken.
          const full = await fetch(`${cluster.url}/v2/socket`, {
            method: 'POST',
            headers: auth(key),
            body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
          });
          assert.equal(full.status, 409);

          // The socket that stays keeps receiving.
          const path = join(files.path, 'quake.xml');
          writeFileSync(path, quake(`limit-cluster ${bus}`));
          const ingest = await runNamazu(['ingest', path], env);
          assert.equal(ingest.code, 0, ingest.stderr);
          await waitFor(
            'the telegram on the socket that stays',
            () => first!.socket.messages.some((m) => m.type === 'data'),
            5000,
          );
          // Nothing more came to those closed, and no process closed one twice.
          for (const { socket } of beyond)
            assert.equal(socket.messages.filter((m) => m.type === 'error').length, 1);
        } finally {
          await db.close();
        }
      } finally {
        for (const { socket } of sockets) socket.ws.terminate();
        if (cluster.child.exitCode === null) await cluster.stop();
        files.remove();
        await database.drop();
      }
    },
  );
}
