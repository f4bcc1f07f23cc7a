// The bookkeeping of first attempts begun before their queue rows commit (the embedded engine): what
// is begun, which ids the committed slices give them, what a round that found the subscriptions
// changed hands to the next, and what is never recorded. The delivery itself, on the embedded
// engine, is what every webhook test there runs through.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClaimedDelivery, QueuedClaim, QueuedDelivery } from '../../src/webhooks/deliveries.ts';
import { EarlyAttempts } from '../../src/webhooks/early-attempts.ts';

const row = (subscriptionId: number, serial: number, claim: boolean): QueuedDelivery => ({
  subscriptionId,
  serial,
  priority: 0,
  claim,
});

/** A stand-in delivery (only what the bookkeeping reads and writes), and its `queued` outcome once settled. */
function made() {
  const settled = new Map<string, boolean>();
  const deliveries: ClaimedDelivery[] = [];
  const deliveryOf = (r: QueuedDelivery, queued: Promise<boolean>) => {
    const d = { id: 0, subscriptionId: r.subscriptionId, serial: r.serial, queued } as ClaimedDelivery;
    void queued.then((there) => settled.set(`${r.subscriptionId}:${r.serial}`, there));
    deliveries.push(d);
    return d;
  };
  return { settled, deliveries, deliveryOf };
}

const claimOf = (subscriptionId: number, serial: number, id: number): QueuedClaim => ({
  id,
  subscriptionId,
  serial,
  priority: 0,
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('the rows to claim begin at once, and a committed slice gives them their ids', async () => {
  const early = new EarlyAttempts();
  const { settled, deliveries, deliveryOf } = made();
  const rows = [row(1, 10, true), row(2, 10, false), row(3, 10, true)];
  const begun = early.begin(rows, deliveryOf);
  assert.deepEqual(
    begun.map((d) => d.subscriptionId),
    [1, 3],
    'only the rows to claim',
  );
  const others = early.committed(rows, [claimOf(1, 10, 501), claimOf(3, 10, 503)]);
  assert.deepEqual(others, [], 'every claimed row was begun early: none is handed over again');
  await turn();
  assert.deepEqual(
    deliveries.map((d) => d.id),
    [501, 503],
  );
  assert.deepEqual(
    [...settled],
    [
      ['1:10', true],
      ['3:10', true],
    ],
  );
});

test('a row begun but not queued (its subscription no longer active, or queued before) is never recorded', async () => {
  const early = new EarlyAttempts();
  const { settled, deliveryOf } = made();
  const rows = [row(1, 10, true), row(2, 10, true)];
  early.begin(rows, deliveryOf);
  early.committed(rows, [claimOf(1, 10, 501)]);
  await turn();
  assert.equal(settled.get('1:10'), true);
  assert.equal(settled.get('2:10'), false);
});

test('a round whose later slice found the subscriptions changed hands its begun rows to the next round, not to the workers again', async () => {
  const early = new EarlyAttempts();
  const { settled, deliveries, deliveryOf } = made();
  const first = [row(1, 10, true), row(2, 10, true), row(3, 10, true)];
  assert.equal(early.begin(first, deliveryOf).length, 3);
  // The first slice (subscription 1) committed; the next found the version moved: nothing queued.
  early.committed(first.slice(0, 1), [claimOf(1, 10, 501)]);
  // The next round, from the same position: subscription 3 was deleted meanwhile, 4 created; the
  // workers would not take 2 now (its flag), but it is under way: claimed for it all the same.
  const again = [row(1, 10, true), row(2, 10, false), row(4, 10, true)];
  const begun = early.begin(again, deliveryOf);
  assert.deepEqual(
    begun.map((d) => d.subscriptionId),
    [4],
    'subscription 1 is queued and under way, 2 under way: only the new one begins',
  );
  assert.deepEqual(
    again.map((r) => r.claim),
    [false, true, true],
    'the row queued before is left to its conflict; the one under way is queued claimed for it',
  );
  await turn();
  assert.equal(settled.get('1:10'), true);
  assert.equal(settled.get('3:10'), false, 'no longer matched: its attempt is not recorded');
  assert.equal(settled.has('2:10'), false, 'still waiting for its row');
  early.committed(again, [claimOf(2, 10, 502), claimOf(4, 10, 504)]);
  early.batchQueued();
  await turn();
  assert.equal(settled.get('2:10'), true);
  assert.equal(settled.get('4:10'), true);
  assert.deepEqual(
    deliveries.map((d) => [d.subscriptionId, d.id]),
    [
      [1, 501],
      [2, 502],
      [3, 0],
      [4, 504],
    ],
    'one delivery begun for each, with the id of its row',
  );
  // The batch done, the next one's rows are new: a row of the same key would begin.
  assert.equal(early.begin([row(1, 10, true)], deliveryOf).length, 1);
});

test('a round that fails, or finds another process queueing, records none of what it began', async () => {
  const early = new EarlyAttempts();
  const { settled, deliveryOf } = made();
  early.begin([row(1, 10, true), row(2, 11, true)], deliveryOf);
  early.abandon();
  await turn();
  assert.deepEqual([...settled.values()], [false, false]);
  assert.deepEqual(early.committed([row(1, 10, true)], [claimOf(1, 10, 501)]), [claimOf(1, 10, 501)]);
});
