import assert from 'node:assert/strict';
import { test } from 'node:test';
import { busCodecs } from '../../src/bus/codecs.ts';
import { createMemoryBus } from '../../src/bus/memory.ts';

test('memory bus: a throwing subscriber is reported and the others still hear every message', async () => {
  const errors: unknown[] = [];
  const bus = createMemoryBus((err) => errors.push(err));
  const heard: string[] = [];
  let resolveBoth!: () => void;
  const both = new Promise<void>((r) => (resolveBoth = r));
  await bus.subscribe('namazu_test', () => {
    throw new Error('subscriber failed');
  });
  await bus.subscribe('namazu_test', (payload) => {
    heard.push(payload);
    if (heard.length === 2) resolveBoth();
  });
  await bus.publish('namazu_test', 'one');
  await bus.publish('namazu_test', 'two');
  await both;
  assert.deepEqual(heard, ['one', 'two']);
  assert.equal(errors.length, 2);
  assert.equal((errors[0] as Error).message, 'subscriber failed');
  await bus.close();
});

test('memory bus: an unsubscribed handler hears nothing published afterwards', async () => {
  const bus = createMemoryBus();
  const first: string[] = [];
  const second: string[] = [];
  const off = await bus.subscribe('namazu_test', (p) => first.push(p));
  let heard!: () => void;
  const done = new Promise<void>((r) => (heard = r));
  await bus.subscribe('namazu_test', (p) => {
    second.push(p);
    heard();
  });
  await off();
  await bus.publish('namazu_test', 'after');
  await done;
  // Delivery to all subscribers of a message happens in one turn: the second has it, so would the first.
  assert.deepEqual(second, ['after']);
  assert.deepEqual(first, []);
  await bus.close();
});

test('channel codecs: messages round-trip; payloads of another shape decode to null', () => {
  const { telegram, contracts, socketClose, revoked } = busCodecs;
  assert.deepEqual(telegram.decode(telegram.encode({ serial: 7 })), { serial: 7 });
  assert.deepEqual(contracts.decode(contracts.encode({ accountId: 3 })), { accountId: 3 });
  assert.deepEqual(socketClose.decode(socketClose.encode({ socketId: 5, code: 4808 })), {
    socketId: 5,
    code: 4808,
  });
  assert.deepEqual(revoked.decode(revoked.encode({ digest: 'abc' })), { digest: 'abc' });
  for (const junk of ['', 'x', 'null', '[]', '{"serial":-1}', '{"serial":"5"}', '{"serial":1.5}'])
    assert.equal(telegram.decode(junk), null, junk);
  assert.equal(contracts.decode('{"accountId":"3"}'), null);
  assert.equal(socketClose.decode('{"socketId":5}'), null);
  assert.equal(revoked.decode('{"digest":1}'), null);
});
