/**
 * Keep-alive against real pooled clients (docs/operations.md "Keep-alive: who closes an idle
 * connection first"): Node's fetch (undici) and the official SDK through axios (Node's keep-alive
 * agent) reuse their connections after quiet periods on both sides of every time-out, and no
 * request fails.
 *
 * - At default settings, on any engine: clients whose event loop is busy for 7 s between requests
 *   (longer than Node's own 5 s keep-alive) find their connections open.
 * - The nginx layout of docs/operations.md (PostgreSQL and nginx required) with every time-out
 *   scaled down (nodes 3 s, nginx's upstream keepalive_timeout 2 s): bursts of GET and POST
 *   requests from pooled clients separated by 1.5, 2.5, 3.5 and 4.5 s of quiet: no failed request,
 *   no 502.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DMDATA } from '@dmdata/sdk-js';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import {
  basic,
  freePort,
  type Node,
  nginxBin,
  SECRET,
  seedKeys,
  serveNode,
  sleep,
  startNginx,
} from './support.ts';
import { engineFree } from '../support/engine.ts';

/** Blocks this process's event loop, as a client busy with other work does. */
function busyFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** What pooled clients saw: answers by status, and requests that got no answer at all. */
class Tally {
  readonly statuses = new Map<number, number>();
  readonly failures: string[] = [];

  async fetch(url: string, init?: RequestInit): Promise<void> {
    try {
      const res = await fetch(url, init);
      await res.arrayBuffer();
      this.count(res.status);
    } catch (err) {
      this.fail(err);
    }
  }

  /** An SDK call: axios rejects on a 4xx too, with the answer attached. */
  async sdk(call: () => Promise<{ status: number }>): Promise<void> {
    try {
      this.count((await call()).status);
    } catch (err) {
      const status = (err as { response?: { status?: number } }).response?.status;
      if (status === undefined) this.fail(err);
      else this.count(status);
    }
  }

  total(): number {
    return [...this.statuses.values()].reduce((a, b) => a + b, 0) + this.failures.length;
  }

  private count(status: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  private fail(err: unknown): void {
    const e = err as { message?: string; code?: string; cause?: { code?: string; message?: string } };
    this.failures.push(`${e.code ?? ''} ${e.message ?? ''} ${e.cause?.code ?? ''} ${e.cause?.message ?? ''}`);
  }
}

/** The official SDK pointed at `origin` (its services are the production paths under /v2). */
function sdkFor(origin: string, apikey: string): DMDATA {
  const base = `${origin}/v2`;
  return new DMDATA({
    credentials: { apikey },
    endpoints: {
      contract: `${base}/contract`,
      socket: `${base}/socket`,
      telegram: `${base}/telegram`,
      'telegram/body': `${origin}/v1`,
      parameter: `${base}/parameter`,
      'gd/earthquake': `${base}/gd/earthquake`,
      'gd/eew': `${base}/gd/eew`,
    },
  });
}

test('default settings: pooled clients busy for 7 s between requests lose nothing', engineFree, async () => {
  const database = await createTestDatabase();
  let node: Node | undefined;
  try {
    node = await serveNode({
      ...(database.databaseUrl
        ? { NAMAZU_DATABASE_URL: database.databaseUrl }
        : { NAMAZU_DATA_DIR: database.dataDir }),
      NAMAZU_DEMO: '0',
    });
    const origin = node.url;
    // An unknown key: every call is answered 401, which is an answer; only a lost request fails.
    const sdks = [sdkFor(origin, 'sk.unknown-key-1'), sdkFor(origin, 'sk.unknown-key-2')];
    const tally = new Tally();
    const burst = () =>
      Promise.all([
        ...Array.from({ length: 4 }, () => tally.fetch(`${origin}/healthz`)),
        ...sdks.map((sdk) => tally.sdk(() => sdk.telegram.list({ limit: 1 }))),
      ]);
    await burst(); // opens the pooled connections
    busyFor(7000);
    await burst();
    busyFor(7000);
    await burst();
    assert.deepEqual(tally.failures, []);
    assert.equal(tally.total(), 18);
    assert.deepEqual([...tally.statuses.keys()].sort(), [200, 401]);
  } finally {
    await node?.stop();
    await database.drop();
  }
});

const skip = !testDatabaseUrl
  ? 'NAMAZU_TEST_DATABASE_URL is not set'
  : !nginxBin
    ? 'NAMAZU_TEST_NGINX is not set'
    : false;

test(
  'nginx layout, time-outs scaled down: pooled clients quiet on both sides of every time-out get no failure and no 502',
  { skip },
  async () => {
    const database = await createTestDatabase();
    const databaseUrl = database.databaseUrl!;
    const [lbPort, portA, portB] = [await freePort(), await freePort(), await freePort()];
    const lb = `http://127.0.0.1:${lbPort}`;
    const env = {
      NAMAZU_DATABASE_URL: databaseUrl,
      NAMAZU_SECRET: SECRET,
      NAMAZU_TRUST_PROXY: '1',
      NAMAZU_DEMO: '0',
      // Node closes an idle connection one second after this: at 4 s.
      NAMAZU_KEEP_ALIVE_TIMEOUT_MS: '3000',
    };
    const cleanup: (() => Promise<unknown>)[] = [() => database.drop()];
    try {
      const nodes = await Promise.allSettled([
        serveNode({ ...env, NAMAZU_SERVER_NAME: 'node-a' }, { port: portA }),
        serveNode({ ...env, NAMAZU_SERVER_NAME: 'node-b' }, { port: portB }),
      ]);
      for (const n of nodes) if (n.status === 'fulfilled') cleanup.push(() => n.value.stop());
      for (const n of nodes) if (n.status === 'rejected') throw n.reason;
      // nginx closes its idle upstream connections first, as documented: 2 s against the nodes' 3 s.
      const nginx = await startNginx(lbPort, [portA, portB], '2s');
      cleanup.push(() => nginx.stop());
      const keys = await seedKeys(
        databaseUrl,
        SECRET,
        2,
        ['telegram.earthquake'],
        ['telegram.list', 'socket.start'],
      );
      const sdks = keys.map((k) => sdkFor(lb, k));

      const tally = new Tally();
      const QUIET_MS = [1500, 2500, 3500, 4500];
      const CLIENTS = 6;
      // Each client bursts, then is quiet; clients are offset by 150 ms, so some requests come
      // close to the moment a node or nginx closes a connection another one left idle.
      const client = async (i: number) => {
        await sleep(i * 150);
        const key = keys[i % keys.length]!;
        for (const quiet of [...QUIET_MS, 0]) {
          await Promise.all([
            tally.fetch(`${lb}/v2/telegram?limit=1`, { headers: basic(key) }),
            // A POST nginx may not send again: its body is read and refused (400), never lost.
            tally.fetch(`${lb}/v2/socket`, {
              method: 'POST',
              headers: { ...basic(key), 'content-type': 'application/json' },
              body: '{"classifications":',
            }),
            tally.sdk(() => sdks[i % sdks.length]!.telegram.list({ limit: 1 })),
          ]);
          await sleep(quiet);
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
      console.log(
        `through nginx: ${JSON.stringify(Object.fromEntries(tally.statuses))}, failed ${tally.failures.length}`,
      );
      assert.deepEqual(tally.failures, []);
      assert.equal(tally.statuses.get(502) ?? 0, 0);
      assert.equal(tally.total(), CLIENTS * (QUIET_MS.length + 1) * 3);
      assert.deepEqual([...tally.statuses.keys()].sort(), [200, 400]);
    } finally {
      for (const step of cleanup.reverse()) await step();
    }
  },
);
