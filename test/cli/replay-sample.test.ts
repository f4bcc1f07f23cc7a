/**
 * The sample telegrams under samples/ and `namazu replay` on them (samples/README.md,
 * docs/sources.md "Replay"): the first telegram goes out at once, a line per telegram shows while
 * the replay runs (through a server's admin channel too), and gaps are cut to 3 s unless
 * --real-time.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { replayItem, replayOrder, replaySchedule } from '../../src/sources/replay.ts';
import { serveNode, tempDir, type Node } from '../multinode/support.ts';
import { migratedDataDir } from '../support/database.ts';
import { NAMAZU_BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { waitFor } from '../support/wait.ts';
import { cleanEnv } from '../support/processes.ts';

const SAMPLES = fileURLToPath(new URL('../../samples/telegrams', import.meta.url));
const sampleFiles = () => readdirSync(SAMPLES).sort();

test('the samples are a small set of telegrams, each named in samples/README.md with its source and JMA credited', () => {
  const files = sampleFiles();
  assert.ok(files.length >= 10 && files.length <= 20, `${files.length} files`);
  const readme = readFileSync(join(SAMPLES, '..', 'README.md'), 'utf8');
  assert.match(readme, /出典：気象庁/);
  for (const file of files) assert.ok(readme.includes(`| \`${file}\` |`), `${file} is described`);
  const types = files.map((f) => /<Title>([^<]*)<\/Title>/.exec(readFileSync(join(SAMPLES, f), 'utf8'))?.[1]);
  for (const title of [
    '緊急地震速報（警報）',
    '緊急地震速報（地震動予報）',
    '震源・震度に関する情報',
    '津波警報・注意報・予報a',
  ])
    assert.ok(types.includes(title), `a ${title}`);
  assert.ok(
    types.some((t) => t?.startsWith('気象警報')),
    'a weather warning',
  );
});

test('a replay cuts each gap to 3 s at its speed, and --real-time keeps them', () => {
  const items = replayOrder(sampleFiles().map((f) => replayItem(f, readFileSync(join(SAMPLES, f)))));
  assert.equal(items.length, sampleFiles().length, 'every sample can be replayed');
  const at = (name: string) => items.findIndex((i) => i.path === name);
  for (const speed of [1, 60]) {
    // Offsets before the speed divides them: at most 3 s of waiting at that speed.
    const offsets = replaySchedule(items, speed, false);
    offsets.forEach((ms, i) =>
      assert.ok(i === 0 || (ms - offsets[i - 1]! >= 0 && ms - offsets[i - 1]! <= 3000 * speed)),
    );
    // The EEW's first report (23:14:57) and its first warning (23:14:59) keep their 2 s.
    const eew = at('77_01_01_240613_VXSE45.xml');
    const warning = at('37_01_01_240613_VXSE43.xml');
    assert.equal(offsets[warning]! - offsets[eew]!, 2000);
  }
  const real = replaySchedule(items, 1, true);
  // 2021-02-17T23:08:00+09:00 to 2024-04-17T23:16:58+09:00, the first and last report times.
  assert.equal(
    real.at(-1),
    Date.parse('2024-04-17T23:16:58+09:00') - Date.parse('2021-02-17T23:08:00+09:00'),
  );
});

test('the sample replay beside a running server sends its first telegram within a second and prints each as it goes', async () => {
  const dir = tempDir('namazu-replay-sample-');
  const env = { NAMAZU_DATA_DIR: join(dir.path, 'data'), NAMAZU_DEMO: '0' };
  let node: Node | undefined;
  try {
    await migratedDataDir(env.NAMAZU_DATA_DIR);
    node = await serveNode(env);
    const replay = spawn(process.execPath, [...NODE_FLAGS, NAMAZU_BIN, 'replay', '--as-test', SAMPLES], {
      env: cleanEnv(env),
    });
    let stderr = '';
    const seen = new Map<string, { ms: number; running: boolean }>();
    replay.stderr.on('data', (d: Buffer) => {
      stderr += d;
      for (const line of stderr.split('\n').slice(0, -1)) {
        const key = /^namazu replay: (\d+\/\d+|\d+ telegrams)/.exec(line)?.[1];
        if (key && !seen.has(key))
          seen.set(key, { ms: performance.now(), running: replay.exitCode === null });
      }
    });
    const exited = new Promise((resolve) => replay.on('exit', resolve));
    const total = sampleFiles().length;
    await waitFor(() => seen.has(`2/${total}`), { message: `the second telegram's line\n${stderr}` });
    const plan = seen.get(`${total} telegrams`)!;
    const first = seen.get(`1/${total}`)!;
    assert.ok(plan, stderr);
    assert.ok(
      first.ms - plan.ms < 1000,
      `first telegram ${Math.round(first.ms - plan.ms)} ms after the start`,
    );
    assert.ok(first.running && seen.get(`2/${total}`)!.running, 'the lines show while the replay runs');
    assert.match(stderr, new RegExp(String.raw`namazu replay: 1/${total} \+0\.\d s \S+\.xml\n`));
    assert.doesNotMatch(stderr, /rejected|stored before/);
    // It runs in the server: the server counts what it stores from the replay.
    const counted = async () =>
      /namazu_telegrams_ingested_total\{[^}]*source="replay"[^}]*\} [1-9]/.test(
        await (await fetch(`${node!.url}/metrics`)).text(),
      );
    await waitFor(counted, { message: 'the server to count a replayed telegram' });
    replay.kill('SIGINT');
    await exited;
  } finally {
    await node?.stop();
    dir.remove();
  }
});
