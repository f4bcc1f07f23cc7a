// The tests mirror the code (docs/architecture.md "Tests"): every folder of test/ is a folder of
// src/ at the same path, so that the tests of a module are found where its name says, except the
// folders that hold no module's tests.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

/** Whole deployments, helpers, the docs' and the house's checks, the tests' own data, the benches' code. */
const NOT_MIRRORED = ['multinode', 'support', 'docs', 'lint', 'fixtures', 'bench'];

function foldersUnder(root: string, skip: readonly string[] = []): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !skip.includes(entry.name))
    .flatMap((entry) => [
      entry.name,
      ...foldersUnder(join(root, entry.name)).map((sub) => join(entry.name, sub)),
    ]);
}

/** The folders of `testFolders` that `srcFolders` does not hold. */
function unmirrored(testFolders: readonly string[], srcFolders: readonly string[]): string[] {
  return testFolders.filter((folder) => !srcFolders.includes(folder));
}

test('every folder of test/ is a folder of src/, except the listed few', () => {
  assert.deepEqual(
    unmirrored(foldersUnder('test', NOT_MIRRORED), foldersUnder('src')),
    [],
    'move these tests beside the src/ folder of the module they test',
  );
});

test('a folder named after no module is found, one named after a nested module is not', () => {
  const src = ['console', join('console', 'live'), 'realtime'];
  assert.deepEqual(unmirrored(['auth', 'console', join('console', 'live'), join('realtime', 'bus')], src), [
    'auth',
    join('realtime', 'bus'),
  ]);
});
