/**
 * DELETE /v2/socket/:id does not depend on the bus (docs/realtime.md "Sessions and tickets"): the
 * session is closed in the database, this process's connection is closed at once, and a process
 * that never hears the announcement closes its connection at its next ping tick.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { channels, type Bus, type BusHandler } from '../../src/bus/types.ts';
import { closeSessionOf } from '../../src/sessions/socket-sessions.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { TestClient } from '../support/realtime.ts';

/** A bus that is down for socket closes: publishing throws and nothing is delivered. */
class SocketCloseBusDown implements Bus {
  readonly inner = createMemoryBus();
  attempts = 0;
  async publish(channel: string, payload: string): Promise<void> {
    if (channel === channels.socketClose) {
      this.attempts++;
      throw new Error('bus unreachable');
    }
    await this.inner.publish(channel, payload);
  }
  subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>> {
    return this.inner.subscribe(channel, handler);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function openSocket(server: TestServer) {
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const key = await server.createApiKey(account.id, [
    'socket.start',
    'socket.list',
    'socket.close',
    'telegram.get.earthquake',
  ]);
  const auth = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
  const res = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
  });
  assert.equal(res.status, 200);
  const started = (await res.json()) as { websocket: { id: number; url: string } };
  const client = new TestClient(started.websocket.url);
  assert.equal(((await client.next()) as { type: string }).type, 'start');
  return { accountId: account.id, auth, socketId: started.websocket.id, client };
}

/** The next message that is not a server ping. */
async function nextNotPing(client: TestClient): Promise<unknown> {
  for (;;) {
    const m = (await client.next()) as { type?: string };
    if (m.type !== 'ping') return m;
  }
}

const closedByAccount = {
  type: 'error',
  error: 'The WebSocket was closed by the account.',
  code: 4808,
  close: true,
};

describe('DELETE /v2/socket/:id with the bus down', () => {
  let server: TestServer;
  const bus = new SocketCloseBusDown();
  before(async () => {
    // Pings every hour: nothing but the DELETE itself can close the connection during the test.
    server = await startTestServer({ bus, config: { pingIntervalMs: 3_600_000 } });
  });
  after(() => server.close());

  it('answers 204 and closes this process’s connection at once', async () => {
    const { auth, socketId, client } = await openSocket(server);
    const res = await fetch(`${server.url}/v2/socket/${socketId}`, { method: 'DELETE', headers: auth });
    assert.equal(res.status, 204);
    assert.ok(bus.attempts >= 1, 'the announcement was attempted');
    assert.deepEqual(await client.next(), closedByAccount);
    assert.equal((await client.closed).code, 4808);
    const list = await fetch(`${server.url}/v2/socket?id=${socketId}`, { headers: auth });
    const body = (await list.json()) as { items: { status: string }[] };
    assert.equal(body.items[0]?.status, 'closed');
  });
});

describe('a session closed by a process whose announcement never arrived', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ bus: new SocketCloseBusDown(), config: { pingIntervalMs: 1000 } });
  });
  after(() => server.close());

  it('is closed with 4808 at the next ping tick', async () => {
    const { accountId, socketId, client } = await openSocket(server);
    // What a DELETE on another node leaves behind: the session closed in the shared database only.
    assert.ok(await closeSessionOf(server.ctx.db, accountId, socketId, Date.now()));
    assert.deepEqual(await nextNotPing(client), closedByAccount);
    assert.equal((await client.closed).code, 4808);
  });
});
