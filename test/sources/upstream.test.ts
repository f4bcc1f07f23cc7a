import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createClient } from '../../src/issuer/clients.ts';
import type { UpstreamCredential } from '../../src/sources/upstream-auth.ts';
import type { UpstreamRelay } from '../../src/sources/upstream.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { fixture } from '../support/fixtures.ts';
import { waitFor } from '../support/wait.ts';
import { freePort, quake } from '../multinode/support.ts';
import {
  ingestInto,
  ingestWhileDown,
  RELAY_SCOPES,
  relayKey,
  relayPositioned,
  startRelay,
  startUpstream,
  subscribe,
  type Subscriber,
} from './relay-support.ts';
import { engineFree } from '../support/engine.ts';

let upstreamDb: TestDatabase;
let upstream: TestServer;
let port: number;

before(async () => {
  upstreamDb = await createTestDatabase();
  port = await freePort();
  upstream = await startUpstream(upstreamDb, port);
});
after(async () => {
  await upstream.close();
  await upstreamDb.drop();
});

/** A downstream server relaying the upstream, and one WebSocket client of it. */
async function downstreamOf(
  connections: 1 | 2,
  credential?: UpstreamCredential,
): Promise<{
  downstream: TestServer;
  relay: UpstreamRelay;
  client: Subscriber;
  close(): Promise<void>;
}> {
  const downstream = await startTestServer();
  const relay = startRelay(downstream, {
    url: upstream.url,
    credential: credential ?? { apiKey: await relayKey(upstream) },
    connections,
  });
  await relayPositioned(downstream);
  const client = await subscribe(downstream);
  return {
    downstream,
    relay,
    client,
    async close() {
      client.close();
      await relay.stop();
      await downstream.close();
    },
  };
}

/** Waits until the client has `n` telegrams, then proves nothing else comes with a marker after them. */
async function receivedExactly(client: Subscriber, expected: readonly Buffer[], marker: Buffer) {
  await ingestInto(upstream, [marker]);
  await waitFor(() => client.received.some((r) => r.xml.equals(marker)), {
    timeout: 30_000,
    message: 'the marker downstream',
  });
  assert.deepEqual(
    client.received.map((r) => label(r.xml)),
    [...expected, marker].map(label),
  );
}

/** A telegram named by its stream comment (quake()), else by its digest: short enough to read in a diff. */
function label(xml: Buffer): string {
  return (
    /<!-- stream (.+?) -->/.exec(xml.toString('utf8'))?.[1] ??
    createHash('sha256').update(xml).digest('hex').slice(0, 12)
  );
}

test('telegrams ingested upstream reach a downstream WebSocket client byte-identical', async () => {
  const { client, close } = await downstreamOf(1);
  try {
    const bodies = [
      readFileSync(fixture('real', '20210217140808_0_VXSE51_010000.xml')),
      readFileSync(fixture('real', '20210217140847_0_VXSE52_010000.xml')),
      readFileSync(fixture('real', '20210217140958_0_VXSE53_010000.xml')),
    ];
    await ingestInto(upstream, bodies);
    await receivedExactly(client, bodies, quake('identical-marker'));
    // Same bytes, same compression: the downstream's ids are the upstream's.
    const upstreamIds = await upstream.ctx.db.query<{ id: string }>(
      `SELECT id FROM telegrams WHERE format = 'xml' ORDER BY serial DESC LIMIT 4`,
    );
    assert.deepEqual(
      client.received.map((r) => r.id),
      upstreamIds.map((r) => r.id).reverse(),
    );
  } finally {
    await close();
  }
});

test('the upstream stopped and restarted mid-stream: the downstream has every telegram once, in order', async () => {
  const { client, close } = await downstreamOf(1);
  try {
    const bodies = Array.from({ length: 12 }, (_, i) => quake(`restart-${i}`));
    await ingestInto(upstream, bodies.slice(0, 4));
    await waitFor(() => client.received.length >= 4, {
      timeout: 15_000,
      message: 'the first four downstream',
    });
    await upstream.close();
    // Stored upstream while it is down: no socket will ever carry these; polling must recover them.
    await ingestWhileDown(upstreamDb, bodies.slice(4, 8));
    upstream = await startUpstream(upstreamDb, port);
    await ingestInto(upstream, bodies.slice(8));
    await receivedExactly(client, bodies, quake('restart-marker'));
  } finally {
    await close();
  }
});

test(
  'two upstream connections, both answering pings: every telegram once, in order',
  engineFree,
  async () => {
    const { client, downstream, close } = await downstreamOf(2);
    try {
      // Both connections are open before the telegrams are stored.
      await waitFor(
        async () =>
          (
            await upstream.ctx.db.query(
              `SELECT 1 FROM socket_sessions WHERE status = 'open' AND app_name LIKE 'namazu-relay-%'`,
            )
          ).length >= 2,
        { timeout: 15_000, message: 'two relay sockets open upstream' },
      );
      // Each answers the upstream's pings: the upstream records a valid pong per open session.
      await waitFor(
        async () =>
          (
            await upstream.ctx.db.query(
              `SELECT 1 FROM socket_sessions WHERE status = 'open' AND app_name LIKE 'namazu-relay-%' AND ping_at IS NOT NULL`,
            )
          ).length >= 2,
        { timeout: 15_000, message: 'pongs of both relay sockets' },
      );
      const bodies = Array.from({ length: 10 }, (_, i) => quake(`pair-${i}`));
      await ingestInto(upstream, bodies);
      await receivedExactly(client, bodies, quake('pair-marker'));
      const stored = await downstream.ctx.db.query(`SELECT 1 FROM telegrams WHERE format = 'xml'`);
      assert.equal(stored.length, 11);
    } finally {
      await close();
    }
  },
);

test('OAuth client credentials: the relay obtains a token for the scopes it needs', async () => {
  const { account } = await upstream.createAccount({ contracts: ['telegram.earthquake'] });
  const { client, clientSecret } = await createClient(upstream.ctx.db, upstream.ctx.pepper, {
    accountId: account.id,
    name: 'relay',
    type: 'confidential',
    grants: ['client_credentials'],
    redirectUris: [],
    scopes: RELAY_SCOPES,
  });
  const credential = { clientId: client.clientId, clientSecret: clientSecret!, tokenUrl: null };
  const { client: subscriber, close } = await downstreamOf(1, credential);
  try {
    const bodies = [quake('oauth-0'), quake('oauth-1')];
    await ingestInto(upstream, bodies);
    await receivedExactly(subscriber, bodies, quake('oauth-marker'));
  } finally {
    await close();
  }
});
