import assert from 'node:assert/strict';
import { test } from 'node:test';
import { busCodecs } from '../../src/bus/codecs.ts';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { channels } from '../../src/bus/types.ts';
import { Dispatcher, type TelegramSource } from '../../src/realtime/dispatcher.ts';
import type { TelegramRecord } from '../../src/telegrams/record.ts';
import { TestClient, record, startEndpoint } from '../support/realtime.ts';

/** A store in memory whose reads take a while, like a database. */
class SlowStore implements TelegramSource {
  readonly records: TelegramRecord[] = [];
  reads = 0;
  async newest(): Promise<number> {
    return this.records.at(-1)?.serial ?? 0;
  }
  async after(after: number, limit: number): Promise<TelegramRecord[]> {
    this.reads++;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return this.records.filter((r) => r.serial > after).slice(0, limit);
  }
}

async function connected() {
  const env = await startEndpoint();
  env.gate.tickets.set('t', {
    socketId: 1,
    filter: { classifications: ['telegram.earthquake'], types: null, test: 'no', formatMode: 'raw' },
    appName: null,
  });
  const client = new TestClient(env.url('t'));
  assert.equal((await client.next()).type, 'start');
  return { env, client };
}

async function noMoreMessages(client: TestClient) {
  client.send({ type: 'ping', pingId: 'end' });
  assert.deepEqual(await client.next(), { type: 'pong', pingId: 'end' }, 'nothing else was sent');
}

test('every stored telegram is broadcast once, in serial order, whatever the announcements say', async () => {
  const { env, client } = await connected();
  const store = new SlowStore();
  store.records.push(record({ serial: 100 }));
  const dispatcher = new Dispatcher(env.hub, store, env.clock, 'namazu/test');
  await dispatcher.start();
  for (const serial of [101, 102, 103]) store.records.push(record({ serial }));
  // Duplicated, out of order, unknown and malformed announcements: each only wakes the dispatcher.
  const bus = createMemoryBus();
  await busCodecs.telegram.subscribe(bus, dispatcher.announce);
  for (const payload of [
    '{"serial":103}',
    '{"serial":101}',
    '{"serial":101}',
    '{"serial":999}',
    '',
    'x',
    'null',
  ]) {
    await bus.publish(channels.telegram, payload);
  }
  await dispatcher.settled();
  await bus.close();

  const got = [await client.next(), await client.next(), await client.next()];
  assert.deepEqual(
    got.map((m) => m.id),
    store.records.slice(1).map((r) => r.id),
    'serials 101, 102, 103 in order; 100 was committed before start',
  );
  assert.deepEqual(got[0]!.passing, [
    { name: 'ingest', time: '2026-01-01T00:00:01.000Z' },
    { name: 'namazu/test', time: '2026-01-01T00:00:00.000Z' },
  ]);
  assert.equal(dispatcher.position, 103);
  await noMoreMessages(client);
  client.ws.close();
  await env.stop();
});

test('a telegram stored without an announcement goes out at the next wake-up (the healing timer)', async () => {
  const { env, client } = await connected();
  const store = new SlowStore();
  const dispatcher = new Dispatcher(env.hub, store, env.clock, 'namazu/test');
  await dispatcher.start();
  store.records.push(record({ serial: 7 }));
  dispatcher.wake();
  assert.equal((await client.next()).id, store.records[0]!.id);
  // Wake-ups while a read is under way coalesce into one more read, not one each.
  store.records.push(record({ serial: 8 }));
  const readsBefore = store.reads;
  for (let i = 0; i < 20; i++) dispatcher.wake();
  await dispatcher.settled();
  assert.ok(store.reads - readsBefore <= 3, `reads: ${store.reads - readsBefore}`);
  assert.equal((await client.next()).id, store.records[1]!.id);
  await noMoreMessages(client);
  client.ws.close();
  await env.stop();
});

test('an announcement of a serial the source holds is sent from memory; an unnamed wake-up reads', async () => {
  const { env, client } = await connected();
  const fresh: boolean[] = [];
  const store = new (class extends SlowStore {
    held = 0;
    holds(serial: number) {
      return serial <= this.held;
    }
    override after(after: number, limit: number, read = true) {
      fresh.push(read);
      return super.after(after, limit);
    }
  })();
  const dispatcher = new Dispatcher(env.hub, store, env.clock, 'namazu/test');
  await dispatcher.start();
  store.records.push(record({ serial: 1 }));
  store.held = 1;
  dispatcher.announce({ serial: 1 });
  await dispatcher.settled();
  assert.equal((await client.next()).id, store.records[0]!.id);
  // Held: read from memory. settled() itself wakes the dispatcher without a serial: a read.
  assert.deepEqual(fresh.slice(0, 2), [false, true]);
  fresh.length = 0;
  store.records.push(record({ serial: 2 }));
  // Announced but not held (another process committed it): the store is read.
  dispatcher.announce({ serial: 2 });
  await dispatcher.settled();
  assert.equal((await client.next()).id, store.records[1]!.id);
  assert.equal(fresh[0], true);
  await noMoreMessages(client);
  client.ws.close();
  await env.stop();
});

test('an announcement of a serial already broadcast wakes nothing; a later one does', async (t) => {
  const { env, client } = await connected();
  t.after(async () => {
    client.ws.close();
    await env.stop();
  });
  const store = new SlowStore();
  const dispatcher = new Dispatcher(env.hub, store, env.clock, 'namazu/test');
  await dispatcher.start();
  store.records.push(record({ serial: 1 }), record({ serial: 2 }));
  dispatcher.announce({ serial: 2 });
  await dispatcher.settled();
  assert.deepEqual(
    [(await client.next()).id, (await client.next()).id],
    [store.records[0]!.id, store.records[1]!.id],
  );
  const reads = store.reads;
  // The announcements of a commit this process delivered already (its cache woke the delivery
  // first), late or repeated: no read, nothing sent. A wake-up starts its read at once, so none
  // started means none will.
  dispatcher.announce({ serial: 2 });
  dispatcher.announce({ serial: 1 });
  assert.equal(store.reads, reads, 'no read for serials already broadcast');
  store.records.push(record({ serial: 3 }));
  dispatcher.announce({ serial: 3 });
  assert.equal(store.reads, reads + 1);
  assert.equal((await client.next()).id, store.records[2]!.id);
  await noMoreMessages(client);
});
