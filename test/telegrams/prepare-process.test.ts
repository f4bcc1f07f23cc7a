/**
 * The prepare pool's runners as child processes (prepare-runners.ts), which prepare the large live
 * telegrams (docs/telegrams.md, "Size"): the same outcome as this thread, below this process in
 * priority, and what becomes of a telegram when its process dies or the pool closes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PreparePool } from '../../src/telegrams/prepare-pool.ts';
import { prepareForIngest, type IngestHints } from '../../src/telegrams/prepare.ts';
import { allRestXmlFixtures, fixtureIndex } from '../support/fixtures.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const RECEIVED = Date.parse('2026-01-02T03:04:05.678Z');
const item = (path: string) => ({
  raw: readFileSync(path),
  hints: { fileName: path.slice(path.lastIndexOf('/') + 1), receivedTime: RECEIVED } as IngestHints,
});
/** Every telegram of the first sample folder, and the largest of the sample set (4 MB). */
const samples = [
  ...fixtureIndex().map((e) => item(e.path)),
  item(allRestXmlFixtures().filter((p) => p.endsWith('_VPRN50.xml'))[0]!),
];

/** /proc/<pid>/stat (or a thread's): its parent (field 4) and nice value (field 19). */
function stat(path: string): { parent: number; nice: number } {
  const text = readFileSync(`${path}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { parent: Number(fields[1]), nice: Number(fields[16]) };
}

/** The prepare processes this process has started that are still running. */
function children(): number[] {
  return readdirSync('/proc')
    .map(Number)
    .filter((pid) => {
      try {
        return (
          pid > 0 &&
          stat(`/proc/${pid}`).parent === process.pid &&
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('prepare-worker')
        );
      } catch {
        return false; // gone meanwhile
      }
    });
}

/** A pool whose process has started, and that process's id. */
async function startedPool(): Promise<{ pool: PreparePool; pid: number }> {
  const before = new Set(children());
  const pool = new PreparePool(1, 'process');
  const probe = samples[0]!;
  await waitFor(() => pool.prepare(probe.raw, probe.hints), {
    timeout: 60_000,
    message: 'a started process',
  });
  const pid = children().find((p) => !before.has(p));
  assert.ok(pid, 'the pool started a process of its own');
  return { pool, pid };
}

describe('prepare runners as child processes', () => {
  let pool: PreparePool;
  let pid: number;
  before(async () => {
    ({ pool, pid } = await startedPool());
  });
  after(() => pool.close());

  it('a process prepares every telegram exactly as this thread does, bodies as Buffers', async () => {
    for (const { raw, hints } of samples) {
      const inProcess = await pool.prepare(raw, hints);
      assert.ok(inProcess);
      assert.deepEqual(inProcess, prepareForIngest(raw, hints), hints.fileName);
      if (inProcess.ok) {
        assert.ok(Buffer.isBuffer(inProcess.telegram.body));
        if (inProcess.conversion?.ok) assert.ok(Buffer.isBuffer(inProcess.conversion.telegram.body));
      }
    }
  });

  it('a telegram the process only reads and converts is compressed here into the same outcome', async () => {
    const { raw, hints } = samples.at(-1)!;
    assert.deepEqual(await pool.prepare(raw, hints, false), prepareForIngest(raw, hints));
  });

  it('every thread of the process, its collector threads among them, runs ten nice steps lower', () => {
    const threads = readdirSync(`/proc/${pid}/task`).map((t) => stat(`/proc/${pid}/task/${t}`).nice);
    assert.ok(threads.length > 3, `${threads.length} threads`);
    assert.deepEqual(new Set(threads), new Set([Math.min(19, getPriority() + 10)]));
  });

  it('a process that dies rejects the telegram it was preparing, and a new process prepares the one behind it', async () => {
    const own = await startedPool();
    try {
      const { raw, hints } = samples.at(-1)!;
      const held = [own.pool.prepare(raw, hints)!, own.pool.prepare(raw, hints)!];
      process.kill(own.pid, 'SIGKILL');
      const [inProgress, behind] = await Promise.allSettled(held);
      assert.equal(inProgress!.status, 'rejected');
      assert.match(
        String((inProgress as PromiseRejectedResult).reason),
        /prepare process (exited with SIGKILL|unreachable: write EPIPE)/,
      );
      assert.deepEqual(behind, { status: 'fulfilled', value: prepareForIngest(raw, hints) });
      const again = await waitFor(() => own.pool.prepare(raw, hints), {
        timeout: 60_000,
        message: 'a new process',
      });
      assert.deepEqual(await again, prepareForIngest(raw, hints));
    } finally {
      await own.pool.close();
    }
  });

  it('closing the pool rejects the telegrams its process still holds and stops it', async () => {
    const own = await startedPool();
    const { raw, hints } = samples.at(-1)!;
    const held = Promise.allSettled([own.pool.prepare(raw, hints)!, own.pool.prepare(raw, hints)!]);
    await own.pool.close();
    assert.ok((await held).every((s) => s.status === 'rejected' && /closed/.test(String(s.reason))));
    assert.ok(!children().includes(own.pid), 'the process is gone');
  });
});

describe('a pool whose runner started but was never given work', () => {
  // A worker's 'message' listener refs its port again when it is added: a pool that unref'd its
  // runner before listening kept a command such as `namazu ingest` of small files from ever exiting.
  for (const kind of ['thread', 'process'] as const) {
    it(`does not keep its process alive (${kind})`, async () => {
      const pool = new URL('src/telegrams/prepare-pool.ts', `file://${root}`).href;
      const script =
        `import { PreparePool } from ${JSON.stringify(pool)};` +
        `const pool = new PreparePool(1, '${kind}');` +
        `const first = pool.prepare(Buffer.from('<a/>'), { receivedTime: 0 });` +
        // Started in the background, and given nothing once it has started.
        `console.log(first === null ? 'inline' : 'queued');`;
      const started = Date.now();
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: root, timeout: 30_000 },
      );
      assert.equal(stdout.trim(), 'inline');
      assert.ok(Date.now() - started < 25_000, 'exited without waiting for the idle stop');
    });
  }
});
