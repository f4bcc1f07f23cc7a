import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Dispatcher } from '../../src/realtime/dispatcher.ts';
import type { TelegramRecord } from '../../src/telegrams/record.ts';
import { TestClient, record, startEndpoint } from '../support/realtime.ts';

test('announcements are broadcast once each, in announcement order, whatever the load latency', async () => {
  const env = await startEndpoint();
  env.gate.tickets.set('t', {
    socketId: 1,
    filter: { classifications: ['telegram.earthquake'], types: null, test: 'no', formatMode: 'raw' },
    appName: null,
  });
  const client = new TestClient(env.url('t'));
  assert.equal((await client.next()).type, 'start');

  const records = new Map<number, TelegramRecord>();
  for (const serial of [101, 102, 103]) records.set(serial, record({ serial }));
  // 101 loads slowest, 103 fastest: delivery must still follow the announcement order.
  const delays = new Map([
    [101, 30],
    [102, 10],
    [103, 0],
  ]);
  const load = (serial: number) =>
    new Promise<TelegramRecord | null>((resolve) =>
      setTimeout(() => resolve(records.get(serial) ?? null), delays.get(serial) ?? 0),
    );
  const dispatcher = new Dispatcher(env.hub, load, env.clock, 'namazu/test');
  for (const payload of [
    '{"serial":101}',
    '{"serial":102}',
    '{"serial":101}',
    '{"serial":103}',
    '{"serial":999}',
  ]) {
    dispatcher.announce(payload);
  }
  for (const junk of ['', 'x', '{"serial":-1}', '{"serial":"5"}', '{"serial":1.5}', 'null'])
    dispatcher.announce(junk);
  await dispatcher.settled();

  const got = [await client.next(), await client.next(), await client.next()];
  assert.deepEqual(
    got.map((m) => m.id),
    [101, 102, 103].map((s) => records.get(s)!.id),
  );
  assert.deepEqual(got[0]!.passing, [
    { name: 'ingest', time: '2026-01-01T00:00:01.000Z' },
    { name: 'namazu/test', time: '2026-01-01T00:00:00.000Z' },
  ]);
  client.send({ type: 'ping', pingId: 'end' });
  assert.deepEqual(await client.next(), { type: 'pong', pingId: 'end' }, 'no duplicate of 101');
  client.ws.close();
  await env.stop();
});
