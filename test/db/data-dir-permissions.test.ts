/**
 * The embedded database's files hold the generated secret, every account and every telegram, and
 * PGlite writes them world-writable (0666) whatever the umask: the folder that holds them is the
 * owner's alone, for a new data directory as for one made by an earlier release.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { embeddedDir, openDb } from '../../src/db/open.ts';
import { migratedDataDir } from '../support/database.ts';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

test('the embedded database folder is opened owner-only under umask 022, new or made before', async () => {
  const work = mkdtempSync(join(tmpdir(), 'namazu-data-dir-'));
  const umask = process.umask(0o022); // a shell's default
  try {
    const fresh = join(work, 'fresh');
    const db = await openDb({ databaseUrl: null, dataDir: fresh, poolSize: 1 });
    await db.close();
    assert.equal(modeOf(fresh), '700');
    assert.equal(modeOf(embeddedDir(fresh)), '700');

    const earlier = join(work, 'earlier');
    await migratedDataDir(earlier);
    chmodSync(embeddedDir(earlier), 0o755);
    const again = await openDb({ databaseUrl: null, dataDir: earlier, poolSize: 1 });
    await again.close();
    assert.equal(modeOf(embeddedDir(earlier)), '700');
  } finally {
    process.umask(umask);
    rmSync(work, { recursive: true, force: true });
  }
});
