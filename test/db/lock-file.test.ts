import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DataDirLockedError, lockDataDir } from '../../src/db/lock-file.ts';

test('a second lock on a data directory held by a live process fails clearly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'namazu-lock-'));
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
  try {
    writeFileSync(join(dir, 'namazu.lock'), String(holder.pid));
    assert.throws(
      () => lockDataDir(dir),
      (err: unknown) =>
        err instanceof DataDirLockedError && err.message.includes(`in use by process ${holder.pid}`),
    );
  } finally {
    holder.kill();
  }
});

test('a lock left by a process that ended is taken over, and released', () => {
  const dir = mkdtempSync(join(tmpdir(), 'namazu-lock-'));
  writeFileSync(join(dir, 'namazu.lock'), '999999999');
  const release = lockDataDir(dir);
  assert.equal(existsSync(join(dir, 'namazu.lock')), true);
  release();
  assert.equal(existsSync(join(dir, 'namazu.lock')), false);
});
