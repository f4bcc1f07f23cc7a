// `npm start` builds the bundle only when its sources changed (scripts/build.js --if-changed,
// scripts/bundle-current.js): a restart with nothing changed starts the bundle already there. Run on a
// copy of the checkout's sources, scripts and package.json (node_modules linked), so that its dist/
// and its source times are this test's own.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cleanEnv } from '../support/processes.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

describe('the build of npm start (scripts/build.js --if-changed)', () => {
  const copy = mkdtempSync(join(tmpdir(), 'namazu-restart-'));
  const bundle = join(copy, 'dist', 'namazu.js');
  // A file of no build's: it survives only as long as dist/ is not built again.
  const sentinel = join(copy, 'dist', 'sentinel');

  before(() => {
    for (const path of ['src', 'bin', 'scripts/build.js', 'scripts/bundle-current.js', 'package.json'])
      cpSync(join(root, path), join(copy, path), { recursive: true, preserveTimestamps: true });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  });
  after(() => rmSync(copy, { recursive: true, force: true }));

  /**
   * `npm start` as a user runs it, with a port the server refuses: what this test looks at happens
   * before (the build, `prestart`), and the server stops at its configuration, before opening a
   * database (starting one is tested in serve.test.ts).
   */
  async function npmStart(): Promise<void> {
    const started = await run('npm', ['start', '--', '--port', 'none'], {
      cwd: copy,
      env: cleanEnv({}),
    }).then(
      () => assert.fail('npm start accepted --port none'),
      (err: { code: number; stderr: string }) => err,
    );
    assert.match(started.stderr, /--port/);
  }

  it('builds dist/ on the first start, not on the second', async () => {
    assert.equal(existsSync(bundle), false);
    await npmStart();
    const built = statSync(bundle).mtimeMs;
    writeFileSync(sentinel, '');
    await npmStart();
    assert.ok(existsSync(sentinel), 'dist/ was built again although no source changed');
    assert.equal(statSync(bundle).mtimeMs, built);
  });

  it('builds again when a source file changes, or one is removed', async () => {
    const buildIfChanged = () => run(process.execPath, ['scripts/build.js', '--if-changed'], { cwd: copy });
    await buildIfChanged();
    writeFileSync(sentinel, '');
    await buildIfChanged();
    assert.ok(existsSync(sentinel), 'nothing changed: no build');

    appendFileSync(join(copy, 'src', 'config.ts'), '\n// changed\n');
    await buildIfChanged();
    assert.equal(existsSync(sentinel), false, 'a changed source: built again');

    writeFileSync(sentinel, '');
    // Only the folder's time says that a file left it.
    rmSync(join(copy, 'src', 'db', 'migrations', '001_accounts.sql'));
    await buildIfChanged();
    assert.equal(existsSync(sentinel), false, 'a removed source: built again');
  });
});
