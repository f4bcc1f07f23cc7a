/**
 * An early warning that overtakes an ordinary broadcast still under way (docs/realtime.md "Fan-out")
 * reaches each connection after the older telegram due to it. A client that drops right after the
 * EEW and resumes after the last id it received (as an EventSource does with Last-Event-ID) misses
 * nothing. Real sockets, the real hub, dispatcher and catch-up; the store is in memory.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { clientAddress } from '../../src/http/client-address.ts';
import { CatchUp } from '../../src/realtime/catch-up.ts';
import { Dispatcher, type TelegramSource } from '../../src/realtime/dispatcher.ts';
import { answerAsRequest, attachWebSocketEndpoint } from '../../src/realtime/endpoint.ts';
import type { DeliveryFilter } from '../../src/realtime/filter.ts';
import { Heartbeat } from '../../src/realtime/heartbeat.ts';
import { Hub } from '../../src/realtime/hub.ts';
import type { TelegramRecord } from '../../src/telegrams/record.ts';
import { MemoryGate, TestClient, record } from '../support/realtime.ts';

const filter: DeliveryFilter = {
  classifications: ['telegram.earthquake', 'eew.forecast'],
  types: null,
  test: 'no',
  formatMode: 'raw',
};

class MemoryStore implements TelegramSource {
  readonly records: TelegramRecord[] = [];
  newest(): Promise<number> {
    return Promise.resolve(this.records.at(-1)?.serial ?? 0);
  }
  after(after: number, limit: number): Promise<TelegramRecord[]> {
    return Promise.resolve(this.records.filter((r) => r.serial > after).slice(0, limit));
  }
  serialOf(id: string): number {
    return this.records.find((r) => r.id === id)!.serial;
  }
}

/** The endpoint with the process's delivery (dispatcher, catch-up) over `store`, `chunkSize` sockets a turn. */
async function startDelivery(t: TestContext, store: MemoryStore, chunkSize: number) {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00.000Z'));
  const hub = new Hub({ chunkSize });
  const delivered: string[] = [];
  const errors: unknown[] = [];
  const onError = (err: unknown) => errors.push(err);
  const dispatcher = new Dispatcher(hub, store, clock, 'namazu/test', onError, (r) => delivered.push(r.id));
  await dispatcher.start();
  const gate = new MemoryGate();
  const notFound = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(404).end();
  const server = createServer(notFound);
  attachWebSocketEndpoint(server, {
    hub,
    heartbeat: new Heartbeat(hub, clock, { timeoutMs: 120_000 }),
    gate,
    clock,
    catchUp: new CatchUp(hub, dispatcher, store, clock, 'namazu/test', onError),
    maxBufferedBytes: 1 << 20,
    maxClientMessageBytes: 4096,
    closeGraceMs: 5000,
    clientAddress: (req) => clientAddress(req, 0),
    passOn: answerAsRequest(notFound),
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    for (const conn of [...hub.connections()]) conn.terminate();
    server.close();
  });
  const port = (server.address() as AddressInfo).port;
  let tickets = 0;
  /** A connection of socket `socketId`, resuming after `resumeAfter` when given, once started. */
  const open = async (socketId: number, resumeAfter: number | null = null) => {
    const ticket = `t${++tickets}`;
    gate.tickets.set(ticket, { socketId, filter, appName: null, resumeAfter });
    const client = new TestClient(`ws://127.0.0.1:${port}/v2/websocket?ticket=${ticket}`);
    assert.equal((await client.next()).type, 'start');
    return client;
  };
  return { dispatcher, delivered, errors, open };
}

/** A telegram with a body (and so an id) of its own. */
function telegram(type: string, classification = 'telegram.earthquake') {
  return record({ type, classification, body: Buffer.from(`<Report>${type} ${randomUUID()}</Report>`) });
}

/** The ids of the data messages the client handles up to and including `last`. */
async function idsUntil(client: TestClient, last: string): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const msg = await client.next<{ type: string; id: string }>();
    if (msg.type !== 'data') continue;
    ids.push(msg.id);
    if (msg.id === last) return ids;
  }
}

test('a client dropped right after an EEW that overtook a broadcast resumes after it and misses nothing', async (t) => {
  const store = new MemoryStore();
  const delivery = await startDelivery(t, store, 2);
  const sockets = 10;
  const clients: TestClient[] = [];
  for (let id = 1; id <= sockets; id++) clients.push(await delivery.open(id));

  // Both read in one batch: the quake reaches 2 sockets, then the EEW is written before its rest.
  const quake = telegram('VXSE53');
  const eew = telegram('VXSE45', 'eew.forecast');
  store.records.push(quake, eew);
  delivery.dispatcher.wake();
  const received: string[][] = [];
  for (const client of clients) {
    received.push(await idsUntil(client, eew.id));
    // The connection drops: whatever arrives after the EEW is lost with it.
    client.ws.terminate();
  }
  await delivery.dispatcher.settled();
  assert.deepEqual(delivery.delivered, [eew.id, quake.id], 'the EEW did not wait for the whole quake');

  // Each resumes after the last id it received; then the live stream goes on.
  const resumed: TestClient[] = [];
  for (const [i, ids] of received.entries()) {
    resumed.push(await delivery.open(sockets + i + 1, store.serialOf(ids.at(-1)!)));
  }
  const aftershock = telegram('VXSE53');
  store.records.push(aftershock);
  delivery.dispatcher.wake();
  for (const [i, client] of resumed.entries()) received[i]!.push(...(await idsUntil(client, aftershock.id)));
  for (const [i, ids] of received.entries()) {
    assert.deepEqual(
      ids,
      [quake.id, eew.id, aftershock.id],
      `client ${i + 1}: every telegram once, in order`,
    );
  }
  for (const client of resumed) {
    client.send({ type: 'ping', pingId: 'end' });
    assert.deepEqual(await client.next(), { type: 'pong', pingId: 'end' }, 'nothing else was sent');
  }
  assert.deepEqual(delivery.errors, []);
});
