import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamSlots } from '../../../src/console/live/slots.ts';

const limits = { perAccount: 2, perAddress: 3, total: 6, adminReserve: 2 };

test('accounts that are not administrators never take the administrators’ share of the total', () => {
  const slots = new StreamSlots(limits);
  const taken = [];
  // Many accounts from many addresses: 4 of the 6 slots, then nothing more for them.
  for (let i = 0; i < 20; i++) {
    const slot = slots.take({ accountId: i, address: `192.0.2.${i}`, admin: false });
    if (slot) taken.push(slot);
  }
  assert.equal(taken.length, limits.total - limits.adminReserve);
  const admin = { accountId: 100, address: '192.0.2.1', admin: true };
  const first = slots.take(admin);
  assert.ok(first && slots.take(admin), 'the administrator gets its streams');
  assert.equal(slots.take(admin), null, 'within its own per-account cap');
  first.release();
  first.release();
  assert.equal(slots.size, limits.total - 1, 'a slot is given back once');
});

test('per account and per address caps; slots come back on release', () => {
  const slots = new StreamSlots(limits);
  const a = { accountId: 1, address: '198.51.100.1', admin: false };
  const b = { accountId: 2, address: '198.51.100.1', admin: false };
  const a1 = slots.take(a)!;
  assert.ok(slots.take(a));
  assert.equal(slots.take(a), null, 'per account');
  assert.ok(slots.take(b));
  assert.equal(slots.take(b), null, 'per address: 3 from one address');
  assert.ok(slots.take({ accountId: 2, address: '198.51.100.2', admin: false }), 'another address');
  a1.release();
  assert.ok(slots.take(a), 'the account and the address have room again');
});
