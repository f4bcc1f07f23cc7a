import { readFileSync } from 'node:fs';
import { PreparePool } from '../../src/telegrams/prepare-pool.ts';
import type { IngestHints } from '../../src/telegrams/prepare.ts';
import { fixtureIndex } from './fixtures.ts';
import { waitFor } from './wait.ts';

export const RECEIVED = Date.parse('2026-01-02T03:04:05.678Z');

/** Every fixture of the sample folders as bulk ingest is given them, all received at RECEIVED. */
export const bulkFixtures = () =>
  fixtureIndex().map((e) => ({
    raw: readFileSync(e.path),
    hints: { fileName: e.file, receivedTime: RECEIVED } as IngestHints,
  }));

/** A pool whose worker has started: from now on every telegram it is given is prepared there. */
export async function startedPool(
  probe: { raw: Buffer; hints: IngestHints },
  pool = new PreparePool(1),
): Promise<PreparePool> {
  await waitFor(() => pool.prepare(probe.raw, probe.hints), { timeout: 60_000, message: 'a started worker' });
  return pool;
}
