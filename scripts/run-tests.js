// Runs every test file under test/ with Node's test runner, each file bundled with its sources
// (scripts/build-tests.js). Node 20's runner does not expand globs itself, so the file list is built here.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests } from './build-tests.js';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = collect('test').filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// Tests that run `namazu` as a process start it from one bundle of this checkout's sources, built
// here as `npm start` builds dist/ (test/support/namazu-bin.ts): through tsx every start would
// compile and load the sources again. Inside the checkout, so that node_modules resolves.
const bundle = join('test-output', `namazu-bin-${process.pid}`);
const testBundle = join('test-output', `tests-${process.pid}`);
const built = spawnSync(process.execPath, ['scripts/build.js', bundle], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
let result;
try {
  const bundled = await buildTests(files, testBundle);
  result = spawnSync(
    process.execPath,
    ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-timeout=600000', ...bundled],
    { stdio: 'inherit', env: { ...process.env, NAMAZU_TEST_BIN: join(process.cwd(), bundle, 'namazu.js') } },
  );
} finally {
  rmSync(bundle, { recursive: true, force: true });
  rmSync(testBundle, { recursive: true, force: true });
}
process.exit(result.status ?? 1);
