// Runs test files in lanes for scripts/run-tests.js: each file as a process of its own (`node
// <file>`: node:test runs its tests and reports them in TAP), as many at once as there are lanes,
// the next file starting as soon as a lane is free. Node's own
// `--test-concurrency` runs one list with one environment; here files on two engines (the whole
// suite on PGlite, the engine-dependent files again on PostgreSQL) share the lanes, so that the
// cores stay busy until the last file ends instead of one list's tail running alone.
// A file's output is printed whole once it ends, headed by its label, its outcome and its time.
import { spawn } from 'node:child_process';

/**
 * Longest a file may run before it is stopped and counted as failed: a hang ends the run instead of
 * holding it. Far over any file's time on a busy machine (about two minutes), as Node's runner
 * allowed each test ten.
 */
const FILE_LIMIT_MS = 15 * 60_000;

/** The summary counts Node's TAP reporter ends a run with. */
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];

/** The counts of one file's output (its last summary), zero where it printed none (a crash). */
function countsOf(text) {
  const counts = Object.fromEntries(COUNTS.map((name) => [name, 0]));
  for (const [, name, n] of text.matchAll(/^# (\w+) (\d+)$/gm)) if (name in counts) counts[name] = Number(n);
  return counts;
}

/** Runs one job; resolves with whether it passed, its counts and when it ended. */
function runOne(job, nodeArgs, since) {
  return new Promise((resolve) => {
    const begun = performance.now();
    const output = [];
    const child = spawn(process.execPath, [...nodeArgs, job.file], {
      env: job.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    let failure = '';
    child.on('error', (err) => (failure = `# could not start: ${err.message}\n`));
    const limit = setTimeout(() => {
      failure = `# stopped: still running after ${FILE_LIMIT_MS / 60_000} minutes\n`;
      child.kill('SIGKILL');
    }, FILE_LIMIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      const text = Buffer.concat(output).toString() + failure;
      const passed = code === 0 && !failure;
      const seconds = ((performance.now() - begun) / 1000).toFixed(1);
      const endedAt = Math.round((performance.now() - since) / 1000);
      const outcome = passed ? 'passed' : `FAILED (${signal ?? `exit status ${code}`})`;
      process.stdout.write(`# ${job.label}: ${outcome} in ${seconds} s, at ${endedAt} s\n${text}`);
      resolve({ job, passed, counts: countsOf(text), endedAt });
    });
  });
}

/**
 * Runs `jobs` ({ file, label, env, group }) in `lanes` lanes, in the order given, each as
 * `node <nodeArgs> <file>`. Resolves with every job's result, in the order they ended.
 */
export async function runInLanes(jobs, lanes, nodeArgs) {
  const since = performance.now();
  const queue = [...jobs];
  const results = [];
  const lane = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) results.push(await runOne(job, nodeArgs, since));
  };
  await Promise.all(Array.from({ length: Math.min(lanes, jobs.length) }, lane));
  return results;
}

/** The summary of a run: per group its files and when its last one ended, the counts, the failed files. */
export function summaryOf(results) {
  const lines = [];
  const groups = [...new Set(results.map((r) => r.job.group))];
  for (const group of groups) {
    const own = results.filter((r) => r.job.group === group);
    const failed = own.filter((r) => !r.passed).length;
    const ended = Math.max(...own.map((r) => r.endedAt));
    lines.push(
      `== ${group}: ${own.length} files, ${failed === 0 ? 'all passed' : `${failed} FAILED`}, the last ended at ${ended} s`,
    );
  }
  for (const name of COUNTS) lines.push(`# ${name} ${results.reduce((n, r) => n + r.counts[name], 0)}`);
  for (const r of results.filter((r) => !r.passed)) lines.push(`# failed: ${r.job.label}`);
  return lines.join('\n');
}
