/**
 * The new user's scenario (docs/realtime.md, "Gap-free delivery"): `namazu serve` on PostgreSQL
 * with nothing but NAMAZU_DATABASE_URL, and `namazu ingest` from a second process. Within 2 s the
 * first list page, nextToken paging, /telegram/v1/list and a WebSocket client all show the new
 * telegrams — over the default bus, and with the in-process bus (no bus between the two processes),
 * where the healing timer finds them.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import {
  basic,
  quake,
  runNamazu,
  seedKeys,
  serveNode,
  type Node,
  startSocket,
  storedIds,
  StreamSocket,
  tempDir,
  waitFor,
} from './support.ts';

const DEADLINE_MS = 2000;

interface Item {
  id: string;
}

const variants: { name: string; env: Record<string, string>; bus: string }[] = [
  { name: 'no configuration (PostgreSQL bus by default)', env: {}, bus: 'postgres' },
  { name: 'NAMAZU_BUS=memory (no bus between the processes)', env: { NAMAZU_BUS: 'memory' }, bus: 'memory' },
];

for (const variant of variants) {
  test(
    `${variant.name}: ingest from another process is listed, paged and streamed within 2 s`,
    { skip: testDatabaseUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set' },
    async () => {
      const database = await createTestDatabase();
      const env = { NAMAZU_DATABASE_URL: database.databaseUrl!, ...variant.env };
      const files = tempDir('namazu-new-user-');
      let node: Node | undefined;
      let socket: StreamSocket | undefined;
      try {
        node = await serveNode(env);
        const url = node.url;
        assert.match(node.output(), new RegExp(`"bus":"${variant.bus}".*"namazu listening"`));
        const [key] = await seedKeys(
          database.databaseUrl!,
          null,
          1,
          ['telegram.earthquake'],
          ['telegram.list', 'socket.start', 'telegram.get.earthquake'],
        );
        const get = async (path: string) => {
          const r = await fetch(`${url}${path}`, { headers: basic(key!) });
          assert.equal(r.status, 200, path);
          return (await r.json()) as Record<string, unknown>;
        };
        // The lists are read (and cached) before the telegrams exist.
        const before = (await get('/v2/telegram')).items as Item[];
        assert.deepEqual((await get('/telegram/v1/list')).items, []);
        const started = await startSocket(node.url, key!, ['telegram.earthquake']);
        assert.equal(started.status, 200);
        socket = new StreamSocket(started.url!);
        await socket.started;

        const raws = [1, 2, 3].map((n) => quake(`new-user ${variant.bus} ${n}`));
        const paths = raws.map((raw, i) => {
          const path = join(files.path, `quake-${i + 1}.xml`);
          writeFileSync(path, raw);
          return path;
        });
        const ingest = await runNamazu(['ingest', ...paths], env);
        assert.equal(ingest.code, 0, ingest.stderr);
        assert.equal(JSON.parse(ingest.stdout).ingested, 3);
        const ingestedAt = performance.now();

        const seen: Record<string, number> = {};
        const within = async (surface: string, check: () => Promise<boolean> | boolean) => {
          await waitFor(
            surface,
            async () => (await check()) || undefined,
            DEADLINE_MS - (performance.now() - ingestedAt),
          );
          seen[surface] = Math.round(performance.now() - ingestedAt);
        };
        await Promise.all([
          within('WebSocket', () => socket!.ids.length >= 3),
          within('first page', async () => {
            const items = (await get('/v2/telegram')).items as Item[];
            return items.length === before.length + 3;
          }),
          within('nextToken paging', async () => {
            const paged: string[] = [];
            let path: string | null = '/v2/telegram?limit=1';
            while (path && paged.length < 10) {
              const page = await get(path);
              paged.push(...(page.items as Item[]).map((i) => i.id));
              path = page.nextToken ? `/v2/telegram?limit=1&cursorToken=${page.nextToken as string}` : null;
            }
            return paged.length === before.length + 3;
          }),
          within(
            '/telegram/v1/list',
            async () => ((await get('/telegram/v1/list')).items as Item[]).length === 3,
          ),
        ]);
        console.log(`${variant.name}: seen after the ingest process ended (ms): ${JSON.stringify(seen)}`);

        const ids = await storedIds(database.databaseUrl!, raws);
        assert.equal(ids.length, 3);
        const newestFirst = [...ids].reverse();
        assert.deepEqual(socket.ids, ids, 'the socket got each telegram once, in serial order');
        assert.deepEqual(
          ((await get('/v2/telegram')).items as Item[]).slice(0, 3).map((i) => i.id),
          newestFirst,
        );
        const v1 = (await get('/telegram/v1/list')).items as { key: string }[];
        assert.deepEqual(
          v1.map((i) => i.key),
          newestFirst,
        );
      } finally {
        socket?.close();
        await node?.stop();
        files.remove();
        await database.drop();
      }
    },
  );
}
