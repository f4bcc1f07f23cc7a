/**
 * `namazu serve --workers 2`: a worker that dies is replaced in its slot, and so is a replacement
 * that dies at its start (the database still unreachable, say). Slot 0 runs what must run once per
 * node (the network sources: docs/sources.md), so a slot left empty stops the node's ingest.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { serveWorkers } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';

const skip = testDatabaseUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set';

/** The pids of the workers that reported listening, in the order they did. */
const listening = (output: string) =>
  [...output.matchAll(/"pid":(\d+)[^\n]*"namazu listening"/g)].map((m) => Number(m[1]));

/** The slot the primary gave this worker (cli/cluster.ts). */
function slotOf(pid: number): string | undefined {
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return environ.find((v) => v.startsWith('NAMAZU_WORKER_SLOT='))?.split('=')[1];
}

test(
  '--workers 2: slot 0 is filled again when the replacement of its worker dies at its start',
  { skip },
  async () => {
    const database = await createTestDatabase();
    const cluster = await serveWorkers(database.databaseUrl!, database.dataDir, 'postgres');
    try {
      const first = listening(cluster.output());
      const slotZero = first.find((pid) => slotOf(pid) === '0');
      assert.ok(slotZero, `a worker holds slot 0: ${first.join(', ')}`);
      // Past the start: the primary replaces it at once.
      await sleep(5500);
      process.kill(slotZero, 'SIGKILL');
      const replacement = await waitFor(() => listening(cluster.output())[2], {
        timeout: 30_000,
        message: 'the replacement to listen',
      });
      assert.equal(slotOf(replacement), '0');
      // The replacement dies at once, as one whose start fails.
      process.kill(replacement, 'SIGKILL');
      const again = await waitFor(() => listening(cluster.output())[3], {
        timeout: 30_000,
        interval: 100,
        message: 'slot 0 to be filled again',
      });
      assert.equal(slotOf(again), '0');
    } finally {
      await cluster.stop();
      await database.drop();
    }
  },
);
