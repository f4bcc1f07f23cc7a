// Runs every test file under test/ (node:test), each file bundled with its sources
// (scripts/build-tests.js) and run as a process of its own, several at once (scripts/test-lanes.js).
//   node scripts/run-tests.js [substring…]   the files whose path holds one of the substrings (all without)
//   --engine-dependent   only the files listed in test/engine-dependent.json: those whose behaviour
//                        depends on the database engine or the bus, run again on PostgreSQL by CI;
//                        their tests marked `engineFree` (test/support/engine.ts) are skipped
//   --coverage / --no-coverage   line and branch coverage of src/ (scripts/coverage.js), printed
//                        after the tests and written to coverage/summary.json; on by default for
//                        the whole suite only (a subset's coverage says little)
//   --also-postgres      then the engine-dependent files among them again on the PostgreSQL server
//                        NAMAZU_TEST_PG_URL names (a role that may create databases), in the same
//                        lanes, without coverage, their `engineFree` tests skipped (CI)
//   --concurrency=N      test files run at once (2 without: the two cores of a small machine)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests } from './build-tests.js';
import { formatCoverage, summariseCoverage } from './coverage.js';
import { runInLanes, summaryOf } from './test-lanes.js';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const concurrencyOption = /^--concurrency=([1-9]\d?)$/;
const concurrency = Number(args.map((a) => concurrencyOption.exec(a)?.[1]).find(Boolean) ?? 2);
const options = new Set(args.filter((a) => a.startsWith('--') && !concurrencyOption.test(a)));
const filters = args.filter((a) => !a.startsWith('--'));
for (const option of options) {
  if (!['--engine-dependent', '--also-postgres', '--coverage', '--no-coverage'].includes(option)) {
    console.error(
      `unknown option ${option} (known: --engine-dependent, --also-postgres, --coverage, --no-coverage, --concurrency=N)`,
    );
    process.exit(1);
  }
}
const postgresUrl = process.env.NAMAZU_TEST_PG_URL;
if (options.has('--also-postgres') && !postgresUrl) {
  console.error(
    '--also-postgres needs NAMAZU_TEST_PG_URL (postgres://… of a role that may create databases)',
  );
  process.exit(1);
}
/** The files whose behaviour depends on the database engine or the bus (README, "Tests"). */
function engineDependent() {
  const listed = JSON.parse(readFileSync('test/engine-dependent.json', 'utf8')).files;
  const missing = listed.filter((f) => !existsSync(f));
  if (missing.length > 0) {
    console.error(`test/engine-dependent.json lists files that do not exist: ${missing.join(', ')}`);
    process.exit(1);
  }
  return new Set(listed);
}
const dependent =
  options.has('--engine-dependent') || options.has('--also-postgres') ? engineDependent() : new Set();
let files = collect('test').filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (options.has('--engine-dependent')) files = files.filter((f) => dependent.has(f));
const onPostgresToo = options.has('--also-postgres') ? files.filter((f) => dependent.has(f)) : [];
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
/**
 * One queue of both lists: the second's jobs spread evenly among the first's from the middle of its
 * list on, so that a file rarely runs on both engines at once (the heavy ones are heavy on both).
 */
function interleaved(first, second) {
  const keyed = [
    ...first.map((job, i) => ({ job, key: i / first.length })),
    ...second.map((job, i) => ({ job, key: (i / second.length + 0.5) % 1 })),
  ];
  return keyed.sort((a, b) => a.key - b.key).map(({ job }) => job);
}
const wholeSuite = filters.length === 0 && !options.has('--engine-dependent');
const coverage = options.has('--coverage') || (wholeSuite && !options.has('--no-coverage'));

// Tests that run `namazu` as a process start it from one bundle of this checkout's sources, built
// here as `npm start` builds dist/ (test/support/namazu-bin.ts): through tsx every start would
// compile and load the sources again. Inside the checkout, so that node_modules resolves.
const bundle = join('test-output', `namazu-bin-${process.pid}`);
const testBundle = join('test-output', `tests-${process.pid}`);
// Every process the tests start, test files, `namazu` and workers, writes V8's counts there.
const rawCoverage = join(process.cwd(), 'test-output', `coverage-${process.pid}`);
const built = spawnSync(process.execPath, ['scripts/build.js', bundle], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
const engine = process.env.NAMAZU_TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
let results;
try {
  const bundled = await buildTests(files, testBundle);
  const bundleOf = (file) => bundled[files.indexOf(file)];
  const env = { ...process.env, NAMAZU_TEST_BIN: join(process.cwd(), bundle, 'namazu.js') };
  // Where only what depends on the engine runs, the tests marked engine-free are skipped.
  if (options.has('--engine-dependent')) env.NAMAZU_TEST_ENGINE_DEPENDENT_ONLY = '1';
  const postgresEnv = {
    ...env,
    NAMAZU_TEST_DATABASE_URL: postgresUrl,
    NAMAZU_TEST_ENGINE_DEPENDENT_ONLY: '1',
  };
  if (coverage) {
    mkdirSync(rawCoverage, { recursive: true });
    env.NODE_V8_COVERAGE = rawCoverage;
  }
  const jobs = interleaved(
    files.map((file) => ({ file: bundleOf(file), label: `${file} (${engine})`, env, group: engine })),
    onPostgresToo.map((file) => ({
      file: bundleOf(file),
      label: `${file} (PostgreSQL, engine-dependent)`,
      env: postgresEnv,
      group: 'PostgreSQL, engine-dependent',
    })),
  );
  // --liftoff-only: the embedded database's WebAssembly compiled once, by V8's baseline compiler, not
  // optimised again in the background (about 1 s of CPU less per test server started); the processes
  // the tests start get it too (test/support/namazu-bin.ts, NODE_FLAGS).
  results = await runInLanes(jobs, concurrency, [
    '--enable-source-maps',
    '--liftoff-only',
    '--test-reporter=tap',
  ]);
  console.log(summaryOf(results));
  if (coverage) {
    const summary = await summariseCoverage(rawCoverage, process.cwd());
    mkdirSync('coverage', { recursive: true });
    writeFileSync('coverage/summary.json', `${JSON.stringify(summary, null, 1)}\n`);
    console.log(formatCoverage(summary));
    console.log('# coverage/summary.json holds every file; scripts/check-coverage.js checks the floor');
  }
} finally {
  rmSync(bundle, { recursive: true, force: true });
  rmSync(testBundle, { recursive: true, force: true });
  rmSync(rawCoverage, { recursive: true, force: true });
}
process.exit(results.every((r) => r.passed) ? 0 : 1);
