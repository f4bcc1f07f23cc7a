/**
 * Faults in the middle of a burst (docs/operations.md "Faults"), two `namazu serve` nodes on one
 * PostgreSQL with the PostgreSQL bus, telegrams ingested by this process straight into the database:
 *
 * - a node killed with SIGKILL: its clients open a new socket on the other node with `after` = the
 *   last telegram they handled, in the slot the dead node's session held, and every client ends with
 *   every telegram exactly once, in order — no deduplication on the client's side;
 * - the database unreachable for 3 s (every connection of the nodes cut, new ones refused, as a
 *   restart looks from the network): the nodes keep their sockets and deliver what was stored
 *   meanwhile once it is back, every telegram once, in order.
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { openBus } from '../../src/bus/open.ts';
import type { Bus } from '../../src/bus/types.ts';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { TcpRelay } from '../support/tcp-relay.ts';
import {
  afterMarker,
  basic,
  type Node,
  quake,
  SECRET,
  seedKeys,
  serveNode,
  sleep,
  StreamSocket,
  waitFor,
} from './support.ts';

const CLASSES = ['telegram.earthquake'];
const skip = testDatabaseUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set';

/** POST /v2/socket on `node`, resuming after `after` when given; the socket once started. */
async function openSocket(node: string, key: string, after: string | null): Promise<StreamSocket | null> {
  const res = await fetch(`${node}/v2/socket`, {
    method: 'POST',
    headers: { ...basic(key), 'content-type': 'application/json' },
    body: JSON.stringify({ classifications: CLASSES, ...(after ? { after } : {}) }),
  }).catch(() => null);
  if (res?.status !== 200) return null;
  const socket = new StreamSocket(((await res.json()) as { websocket: { url: string } }).websocket.url);
  return socket.started.then(
    () => socket,
    () => null,
  );
}

/**
 * A client that knows every node: when its socket drops it opens one on the first node that
 * answers, resuming after the last telegram it handled.
 */
class ResumingClient {
  readonly sockets: StreamSocket[] = [];
  /** When its socket dropped (performance.now()), and when the first telegram after that came. */
  droppedAt: number | null = null;
  firstAfterDrop: number | null = null;
  private stopped = false;

  constructor(
    private readonly nodes: string[],
    private readonly key: string,
  ) {}

  get ids(): string[] {
    return this.sockets.flatMap((s) => s.ids);
  }

  async start(nodeIndex: number): Promise<void> {
    const socket = await openSocket(this.nodes[nodeIndex]!, this.key, null);
    assert.ok(socket, 'the first socket opens');
    this.watch(socket);
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.sockets) s.close();
  }

  private watch(socket: StreamSocket): void {
    this.sockets.push(socket);
    void socket.closed.then(() => this.reconnect());
  }

  private async reconnect(): Promise<void> {
    if (this.stopped) return;
    // Measured from the first drop (the node's death) to the first telegram after it.
    this.droppedAt ??= performance.now();
    const received = this.ids.length;
    for (;;) {
      for (const node of this.nodes) {
        const socket = await openSocket(node, this.key, this.ids.at(-1) ?? null);
        if (!socket) continue;
        if (this.stopped) return socket.close();
        this.watch(socket);
        void waitFor('a telegram after the drop', () => this.ids.length > received, 60_000, 10).then(
          () => (this.firstAfterDrop ??= performance.now()),
          () => {},
        );
        return;
      }
      await sleep(100);
    }
  }
}

interface Cluster {
  nodes: Node[];
  db: Db;
  bus: Bus;
  keys: string[];
  ingest(label: string): Promise<string>;
}

/** Two nodes on a fresh database (reached at `nodeDatabaseUrl(url)`), `clients` keys; torn down after `body`. */
async function withCluster(
  clients: number,
  nodeDatabaseUrl: (url: string) => Promise<string>,
  body: (cluster: Cluster) => Promise<void>,
): Promise<void> {
  const database = await createTestDatabase();
  const databaseUrl = database.databaseUrl!;
  const cleanup: (() => Promise<unknown>)[] = [() => database.drop()];
  try {
    const env = {
      NAMAZU_DATABASE_URL: await nodeDatabaseUrl(databaseUrl),
      NAMAZU_BUS: 'postgres',
      NAMAZU_SECRET: SECRET,
      NAMAZU_DEMO: '0',
    };
    const started = await Promise.allSettled(
      ['node-a', 'node-b'].map((name) => serveNode({ ...env, NAMAZU_SERVER_NAME: name })),
    );
    for (const n of started) if (n.status === 'fulfilled') cleanup.push(() => n.value.stop());
    const nodes = started.map((n) => {
      if (n.status === 'rejected') throw n.reason;
      return n.value;
    });
    const db = await openDb({ databaseUrl, dataDir: tmpdir(), poolSize: 2 });
    cleanup.push(() => db.close());
    const bus = await openBus({ bus: 'postgres', databaseUrl, redisUrl: null });
    cleanup.push(() => bus.close());
    // Each client on an account of its own with one connection slot: a client of a killed node gets
    // its new socket only once the dead node's session stops counting (docs/realtime.md).
    const keys = await seedKeys(databaseUrl, SECRET, clients, CLASSES, [
      'socket.start',
      'socket.list',
      'telegram.get.earthquake',
    ]);
    const ingest = async (label: string) => {
      const out = await ingestTelegram({ db, bus }, quake(label), { receivedTime: Date.now() });
      assert.ok(out.ok);
      return out.stored.id;
    };
    await body({ nodes, db, bus, keys, ingest });
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  }
}

/** Every socket's telegrams in the order they came: exactly `sent`, nothing twice, nothing missing. */
function assertExactlyOnce(name: string, ids: string[], sent: string[]): void {
  assert.deepEqual(ids, sent, `${name}: every telegram exactly once, in serial order`);
}

test(
  'a node killed mid-burst: its clients resume on the other node from their last id, every telegram exactly once',
  { skip },
  async () => {
    await withCluster(
      8,
      async (url) => url,
      async ({ nodes, keys, ingest }) => {
        const urls = nodes.map((n) => n.url);
        const clients = keys.map((key) => new ResumingClient(urls, key));
        await Promise.all(clients.map((c, i) => c.start(i % 2)));
        const onA = clients.filter((_, i) => i % 2 === 0);
        try {
          const sent: string[] = [];
          for (let i = 1; i <= 30; i++) {
            sent.push(await ingest(`kill ${i}`));
            if (i === 10) {
              // Mid-burst: the node dies while the telegrams keep coming.
              await waitFor(
                'some telegrams delivered',
                () => clients.every((c) => c.ids.length >= 5),
                10_000,
              );
              await nodes[0]!.kill();
            }
            await sleep(30);
          }
          sent.push(await afterMarker(clients, () => ingest('kill marker')));
          for (const [i, c] of clients.entries()) assertExactlyOnce(`client ${i}`, c.ids, sent);
          for (const c of onA) {
            assert.ok(c.sockets.length >= 2, 'a client of the killed node reconnected');
            const took = c.firstAfterDrop! - c.droppedAt!;
            assert.ok(
              took < 10_000,
              `the next telegram after the kill within 10 s (took ${took.toFixed(0)} ms)`,
            );
          }
          console.log(
            `node killed: its ${onA.length} clients had the next telegram ${onA
              .map((c) => (c.firstAfterDrop! - c.droppedAt!).toFixed(0))
              .join(', ')} ms after their socket dropped`,
          );
        } finally {
          for (const c of clients) c.stop();
        }
      },
    );
  },
);

test(
  'the database unreachable for 3 s mid-burst: nodes keep their sockets, then deliver every telegram once',
  { skip },
  async () => {
    let relay: TcpRelay | null = null;
    try {
      await withCluster(
        6,
        async (url) => {
          relay = new TcpRelay(new URL(url), 5432);
          await relay.listen();
          return relay.url();
        },
        async ({ nodes, keys, ingest }) => {
          const sockets: StreamSocket[] = [];
          try {
            for (const [i, key] of keys.entries()) {
              const socket = await openSocket(nodes[i % 2]!.url, key, null);
              assert.ok(socket, 'the socket opens');
              sockets.push(socket);
            }
            const sent: string[] = [];
            let outage: Promise<void> | null = null;
            for (let i = 1; i <= 30; i++) {
              sent.push(await ingest(`outage ${i}`));
              if (i === 10) {
                outage = relay!.outage(3000);
                // Meanwhile a request that needs the database is told to come back, not a server error.
                const during = await fetch(`${nodes[0]!.url}/v2/socket`, { headers: basic(keys[0]!) });
                assert.equal(during.status, 503, await during.text());
                assert.ok(Number(during.headers.get('retry-after')) > 0, 'with Retry-After');
              }
              await sleep(50);
            }
            await outage;
            assert.ok(relay!.cut > 0, "the outage cut the nodes' database connections");
            sent.push(await afterMarker(sockets, () => ingest('outage marker')));
            for (const [i, s] of sockets.entries()) {
              assert.equal(s.closeCode, null, `socket ${i} stayed open through the outage`);
              assertExactlyOnce(`socket ${i}`, s.ids, sent);
            }
          } finally {
            for (const s of sockets) s.close();
          }
        },
      );
    } finally {
      await (relay as TcpRelay | null)?.close();
    }
  },
);
