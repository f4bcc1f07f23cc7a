/**
 * Requests in batches per key (src/batches.ts; one account's session starts, the counts of new
 * anonymous connections): requests that come while a batch runs go together in the next, in the
 * order they came; one request's failure is its own; keys do not wait for each other.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Batches } from '../src/batches.ts';

/** A runner that records its batches and answers each input doubled, after a turn of the event loop. */
function recording(fail?: (input: number) => boolean) {
  const batches: { key: number | string; inputs: number[] }[] = [];
  const batchesOf = new Batches<number, number>(async (key, inputs) => {
    batches.push({ key, inputs: [...inputs] });
    await new Promise((r) => setTimeout(r, 5));
    if (fail && inputs.some(fail)) throw new Error(`bad input in ${inputs.join(',')}`);
    return inputs.map((i) => i * 2);
  });
  return { batches, batchesOf };
}

test('requests that come while a batch runs go together in the next, in order', async () => {
  const { batches, batchesOf } = recording();
  const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => batchesOf.run(7, i)));
  assert.deepEqual(answers, [2, 4, 6, 8, 10]);
  assert.deepEqual(batches, [
    { key: 7, inputs: [1] },
    { key: 7, inputs: [2, 3, 4, 5] },
  ]);
  // Nothing is held once the key's batches are done: the next request runs alone at once.
  assert.equal(await batchesOf.run(7, 6), 12);
  assert.deepEqual(batches.at(-1), { key: 7, inputs: [6] });
});

test('a batch holds at most 256 requests', async () => {
  const { batches, batchesOf } = recording();
  await Promise.all(Array.from({ length: 600 }, (_, i) => batchesOf.run(1, i)));
  assert.deepEqual(
    batches.map((b) => b.inputs.length),
    [1, 256, 256, 87],
  );
  assert.deepEqual(
    batches.flatMap((b) => b.inputs),
    Array.from({ length: 600 }, (_, i) => i),
  );
});

test("keys are batched apart and do not wait for each other's batches", async () => {
  const { batches, batchesOf } = recording();
  await Promise.all([batchesOf.run(1, 1), batchesOf.run(2, 2), batchesOf.run(1, 3), batchesOf.run(2, 4)]);
  assert.deepEqual(batches, [
    { key: 1, inputs: [1] },
    { key: 2, inputs: [2] },
    { key: 1, inputs: [3] },
    { key: 2, inputs: [4] },
  ]);
});

test("one request's failure is its own: a failed batch runs each of its requests alone", async () => {
  const { batches, batchesOf } = recording((i) => i === 3);
  const outcomes = await Promise.allSettled([1, 2, 3, 4].map((i) => batchesOf.run(5, i)));
  assert.deepEqual(
    outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected')),
    [2, 4, 'rejected', 8],
  );
  assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /bad input in 3/);
  assert.deepEqual(
    batches.map((b) => b.inputs),
    [[1], [2, 3, 4], [2], [3], [4]],
  );
});
