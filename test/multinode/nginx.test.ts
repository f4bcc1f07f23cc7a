/**
 * The deployment of docs/operations.md on loopback: nginx (the documented configuration) in front
 * of two `namazu serve` nodes (one with --workers 2), one PostgreSQL, the PostgreSQL or the Redis
 * bus. 50 concurrent socket starts spread over both nodes share one limit of 3. WebSocket clients
 * on both nodes receive a stream of telegrams; one node is killed with SIGKILL mid-stream; its
 * clients reconnect at once through nginx (to the other node) and recover what they missed by
 * polling nextPooling; after deduplication by id every client has every telegram, once, in serial
 * order. The recovery time is printed.
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { openBus } from '../../src/bus/open.ts';
import { openDb } from '../../src/db/open.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { redisUrl } from '../support/processes.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import {
  afterMarker,
  basic,
  dedupe,
  freePort,
  type Node,
  nginxBin,
  quake,
  SECRET,
  seedKeys,
  serveNode,
  sleep,
  startNginx,
  startSocket,
  StreamSocket,
  waitFor,
} from './support.ts';

const CLIENTS = 8;
const TOTAL = 40;
const KILL_AFTER = 12;
const CLASSES = ['telegram.earthquake'];

interface Item {
  id: string;
  serial: number;
}

/** A client of the stream that recovers from a lost connection as docs/operations.md describes. */
class Client {
  readonly sockets: StreamSocket[] = [];
  polled: string[] = [];
  node = '';
  recoveredAt: number | null = null;

  constructor(
    private readonly lb: string,
    private readonly key: string,
    private cursor: string,
  ) {}

  static async connect(lb: string, key: string): Promise<Client> {
    const first = (await (await fetch(`${lb}/v2/telegram?limit=1`, { headers: basic(key) })).json()) as {
      nextPooling: string;
    };
    const client = new Client(lb, key, first.nextPooling);
    await client.subscribe();
    const list = (await (await fetch(`${lb}/v2/socket`, { headers: basic(key) })).json()) as {
      items: { server: string; status: string }[];
    };
    client.node = list.items.find((s) => s.status === 'open')!.server;
    return client;
  }

  get socket(): StreamSocket {
    return this.sockets.at(-1)!;
  }

  /** Every telegram it has, deduplicated: first socket, then the poll, then the later socket. */
  history(): string[] {
    const [first, ...later] = this.sockets;
    return dedupe([...first!.ids, ...this.polled, ...later.flatMap((s) => s.ids)]);
  }

  private async subscribe(): Promise<void> {
    // A real client retries while the load balancer finds the live node.
    const socket = await waitFor(
      'a new socket through the load balancer',
      async () => {
        const started = await startSocket(this.lb, this.key, CLASSES).catch(() => ({
          status: 0,
          url: undefined,
        }));
        if (started.status !== 200) return undefined;
        const s = new StreamSocket(started.url!);
        return s.started.then(
          () => s,
          () => undefined,
        );
      },
      20_000,
      50,
    );
    this.sockets.push(socket);
  }

  /** On a lost connection: a new socket at once, then poll from the cursor until nothing is new. */
  async recoverWhenCut(): Promise<void> {
    await this.socket.closed;
    await this.subscribe();
    for (;;) {
      const r = await fetch(`${this.lb}/v2/telegram?limit=100&cursorToken=${this.cursor}`, {
        headers: basic(this.key),
      });
      assert.equal(r.status, 200);
      const page = (await r.json()) as { items: Item[]; nextPooling: string };
      this.cursor = page.nextPooling;
      if (page.items.length === 0) break;
      this.polled.push(...[...page.items].sort((a, b) => a.serial - b.serial).map((i) => i.id));
    }
    this.recoveredAt = performance.now();
  }
}

for (const bus of ['postgres', 'redis'] as const) {
  const skip = !testDatabaseUrl
    ? 'NAMAZU_TEST_DATABASE_URL is not set'
    : !nginxBin
      ? 'NAMAZU_TEST_NGINX is not set'
      : bus === 'redis' && !redisUrl
        ? 'NAMAZU_TEST_REDIS_URL is not set'
        : false;
  test(
    `nginx, two nodes, ${bus} bus: one limit across nodes; a node killed mid-stream loses no client a telegram`,
    { skip },
    async () => {
      const database = await createTestDatabase();
      const databaseUrl = database.databaseUrl!;
      const [lbPort, portA, portB] = [await freePort(), await freePort(), await freePort()];
      const lb = `http://127.0.0.1:${lbPort}`;
      const env = {
        NAMAZU_DATABASE_URL: databaseUrl,
        NAMAZU_BUS: bus,
        ...(bus === 'redis' ? { NAMAZU_REDIS_URL: redisUrl! } : {}),
        NAMAZU_SECRET: SECRET,
        NAMAZU_BASE_URL: lb,
        NAMAZU_AUTH_URL: lb,
        NAMAZU_DATA_URL: lb,
        NAMAZU_WEBSOCKET_URL: `ws://127.0.0.1:${lbPort}`,
        NAMAZU_TRUST_PROXY: '1',
        NAMAZU_DEMO: '0',
      };
      // Everything started is stopped at the end, in reverse order, whatever failed.
      const cleanup: (() => Promise<unknown>)[] = [() => database.drop()];
      const clients: Client[] = [];
      try {
        const nodes = await Promise.allSettled([
          serveNode({ ...env, NAMAZU_SERVER_NAME: 'node-a' }, { port: portA, workers: 2 }),
          serveNode({ ...env, NAMAZU_SERVER_NAME: 'node-b' }, { port: portB }),
        ]);
        for (const n of nodes) if (n.status === 'fulfilled') cleanup.push(() => n.value.stop());
        const [nodeA, nodeB] = nodes.map((n) => {
          if (n.status === 'rejected') throw n.reason;
          return n.value;
        }) as [Node, Node];
        const nginx = await startNginx(lbPort, [portA, portB]);
        cleanup.push(() => nginx.stop());
        const db = await openDb({ databaseUrl, dataDir: tmpdir(), poolSize: 2 });
        cleanup.push(() => db.close());
        const ingestBus = await openBus({ bus, databaseUrl, redisUrl });
        cleanup.push(() => ingestBus.close());

        // 50 concurrent starts, half on each node, one account with a limit of 3.
        const [limited] = await seedKeys(
          databaseUrl,
          SECRET,
          1,
          ['telegram.earthquake', 'eew.forecast', 'eew.warning'],
          ['socket.start', 'telegram.get.earthquake'],
        );
        const statuses = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            startSocket(i % 2 ? nodeA.url : nodeB.url, limited!, CLASSES).then((r) => r.status),
          ),
        );
        assert.equal(statuses.filter((s) => s === 200).length, 3, statuses.join(','));
        assert.equal(statuses.filter((s) => s === 409).length, 47, statuses.join(','));

        // Clients through nginx, each on an account of its own with room for a reconnection.
        const keys = await seedKeys(
          databaseUrl,
          SECRET,
          CLIENTS,
          ['telegram.earthquake', 'websocket.plus5'],
          ['socket.start', 'socket.list', 'telegram.list', 'telegram.get.earthquake'],
        );
        for (const key of keys) clients.push(await Client.connect(lb, key));
        const onA = clients.filter((c) => c.node.startsWith('node-a'));
        const onB = clients.filter((c) => c.node === 'node-b');
        assert.ok(
          onA.length > 0 && onB.length > 0,
          `clients on both nodes: ${clients.map((c) => c.node).join(', ')}`,
        );
        const recovering = onA.map((c) => c.recoverWhenCut());

        const sent: string[] = [];
        let killedAt = 0;
        let sentBeforeKill = 0;
        for (let i = 1; i <= TOTAL; i++) {
          const out = await ingestTelegram({ db, bus: ingestBus }, quake(`nginx ${bus} ${i}`), {
            receivedTime: Date.now(),
          });
          assert.ok(out.ok);
          sent.push(out.stored.id);
          if (i === KILL_AFTER) {
            await waitFor(
              'the first telegrams everywhere',
              () => clients.every((c) => c.socket.ids.length >= KILL_AFTER),
              10_000,
            );
            killedAt = performance.now();
            sentBeforeKill = sent.length;
            await nodeA.kill();
          }
          await sleep(50);
        }
        await Promise.all(recovering);
        await waitFor(
          'every client to have every telegram',
          () => clients.every((c) => c.history().length >= TOTAL),
          20_000,
        );
        // No duplicate comes late: a marker stored after everything else reaches every client last.
        sent.push(
          await afterMarker(
            clients.map((c) => c.socket),
            async () => {
              const out = await ingestTelegram({ db, bus: ingestBus }, quake(`nginx ${bus} marker`), {
                receivedTime: Date.now(),
              });
              assert.ok(out.ok);
              return out.stored.id;
            },
          ),
        );

        const order = new Map(sent.map((id, i) => [id, i]));
        for (const c of clients) {
          assert.deepEqual(c.history(), sent, `${c.node}: every telegram once, in serial order`);
          for (const s of c.sockets) {
            const positions = s.ids.map((id) => order.get(id)!);
            assert.ok(
              positions.every((p, i) => p !== undefined && (i === 0 || p > positions[i - 1]!)),
              'each socket: once each, in order',
            );
          }
        }
        for (const c of onB) assert.equal(c.sockets.length, 1, 'the clients of the live node were never cut');
        for (const c of onA) {
          assert.equal(c.sockets.length, 2);
          assert.ok(
            c.sockets[0]!.closeCode !== null && c.sockets[0]!.closeCode !== 1000,
            'the dead node cut it',
          );
          assert.ok(c.sockets[0]!.ids.length >= sentBeforeKill);
          assert.deepEqual(
            [...c.sockets[1]!.servers],
            ['node-b'],
            'reconnected through nginx to the other node',
          );
        }
        const recovery = Math.max(...onA.map((c) => c.recoveredAt! - killedAt));
        const onlyPolled = onA.map(
          (c) => c.polled.filter((id) => !c.sockets.some((s) => s.ids.includes(id))).length,
        );
        console.log(
          `recovery after a node kill (${bus} bus, target ≤ 5000 ms): ${Math.round(recovery)} ms until all ${onA.length} clients of the dead node caught up (${onB.length} on the other node); telegrams only the poll brought: ${onlyPolled.join(', ')}`,
        );
        for (const c of clients) c.socket.close();
      } finally {
        for (const c of clients) c.socket.close();
        for (const step of cleanup.reverse()) await step();
      }
    },
  );
}
