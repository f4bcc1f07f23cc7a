// What an opening learns of the contract changes told to its process while it redeemed its ticket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContractChanges } from '../../src/realtime/contract-change.ts';

test("an opening learns of its account's changes since its mark, not of others' or earlier ones", () => {
  const changes = new ContractChanges();
  changes.changed(1);
  const mark = changes.mark();
  assert.equal(changes.changedSince(mark, 1), false);
  changes.changed(2);
  assert.equal(changes.changedSince(mark, 1), false);
  assert.equal(changes.changedSince(mark, 2), true);
  changes.changed(1);
  assert.equal(changes.changedSince(mark, 1), true);
});

test('an opening that began before the oldest change remembered assumes its account changed', () => {
  const changes = new ContractChanges();
  const mark = changes.mark();
  for (let i = 0; i < 1000; i++) changes.changed(2);
  assert.equal(changes.changedSince(mark, 1), true);
  assert.equal(changes.changedSince(changes.mark(), 1), false);
});
