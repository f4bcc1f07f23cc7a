/**
 * The bulk pool's worker threads (prepare-pool.ts), which prepare the telegrams of a bulk ingest
 * (docs/telegrams.md, "Bulk ingest"): the same outcome as this thread, below this thread in
 * priority, and what closing the pool does to the telegrams they hold. Storing them in order is
 * bulk-ingest.test.ts, on both engines.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { PreparePool } from '../../src/telegrams/prepare-pool.ts';
import { prepareForIngest } from '../../src/telegrams/prepare.ts';
import { bulkFixtures, startedPool } from '../support/bulk-fixtures.ts';

const fixtures = bulkFixtures();

describe('prepare worker threads', () => {
  let pool: PreparePool;
  before(async () => {
    pool = await startedPool(fixtures[0]!);
  });
  after(() => pool.close());

  it('a worker prepares every fixture exactly as this thread does', async () => {
    for (const { raw, hints } of fixtures) {
      const inWorker = await pool.prepare(raw, hints);
      assert.ok(inWorker);
      assert.deepEqual(inWorker, prepareForIngest(raw, hints), hints.fileName);
      if (inWorker.ok) {
        assert.ok(Buffer.isBuffer(inWorker.telegram.body));
        if (inWorker.conversion?.ok) assert.ok(Buffer.isBuffer(inWorker.conversion.telegram.body));
      }
    }
  });

  it('a worker runs ten nice steps below this thread', () => {
    // /proc/self/task/<thread>/stat: field 19 is the thread's nice value.
    const nices = readdirSync('/proc/self/task').map((thread) => {
      const stat = readFileSync(`/proc/self/task/${thread}/stat`, 'utf8');
      return { thread: Number(thread), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
    });
    const main = nices.find((t) => t.thread === process.pid)!.nice;
    assert.equal(main, getPriority());
    assert.ok(
      nices.some((t) => t.nice === Math.min(19, main + 10)),
      JSON.stringify(nices),
    );
  });

  it('a telegram the worker only reads and converts is compressed here into the same outcome', async () => {
    const inWorker = await Promise.all(
      fixtures.map(({ raw, hints }, i) => pool.prepare(raw, hints, i % 2 === 0)),
    );
    fixtures.forEach(({ raw, hints }, i) => {
      assert.deepEqual(inWorker[i], prepareForIngest(raw, hints), hints.fileName);
    });
  });

  it('closing the pool rejects the telegrams its workers still hold', async () => {
    const own = await startedPool(fixtures[0]!);
    const held = fixtures.slice(0, 20).map(({ raw, hints }) => own.prepare(raw, hints)!);
    const outcomes = Promise.allSettled(held);
    await own.close();
    const settled = await outcomes;
    assert.ok(settled.every((s) => s.status === 'rejected' && /closed/.test(String(s.reason))));
  });
});
