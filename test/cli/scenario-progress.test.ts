/**
 * `namazu scenario earthquake` says each telegram as it is stored (through a server's admin channel
 * too), and its summary's origin time is the one its earthquake reports carry (docs/sources.md
 * "Earthquake scenarios").
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { earthquakeScenario } from '../../src/sources/scenario/sequence.ts';
import { serveNode, tempDir, type Node } from '../multinode/support.ts';
import { migratedDataDir } from '../support/database.ts';
import { NAMAZU_BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { waitFor } from '../support/wait.ts';
import { cleanEnv } from '../support/processes.ts';

const QUAKE = ['--lat', '35.7', '--lon', '139.7', '--depth', '40', '--magnitude', '7.1'];
const originOf = (xml: string) => /<OriginTime>([^<]+)<\/OriginTime>/.exec(xml)?.[1];

test("a scenario's origin time is the one its reports carry, to the minute as JMA's", () => {
  // 12:34:56.789 JST: the origin falls five seconds earlier, at 12:34:51.
  const scenario = earthquakeScenario(
    { latitude: 35.7, longitude: 139.7, depthKm: 40, magnitude: 7.1, asReal: true },
    Date.parse('2026-01-31T12:34:56.789+09:00'),
  );
  assert.equal(scenario.originTime, '2026-01-31T12:34:00+09:00');
  assert.equal(scenario.eventId, '20260131123451');
  for (const t of scenario.telegrams) {
    const origin = originOf(t.xml);
    if (/^VXSE4/.test(t.type)) assert.equal(origin, '2026-01-31T12:34:51+09:00', t.type);
    else if (origin !== undefined) assert.equal(origin, scenario.originTime, t.type);
  }
  assert.ok(scenario.telegrams.some((t) => t.type === 'VXSE53' && originOf(t.xml) !== undefined));
});

test('the scenario command beside a running server prints each telegram while it runs', async () => {
  const dir = tempDir('namazu-scenario-progress-');
  const env = { NAMAZU_DATA_DIR: join(dir.path, 'data'), NAMAZU_DEMO: '0' };
  let node: Node | undefined;
  try {
    await migratedDataDir(env.NAMAZU_DATA_DIR);
    node = await serveNode(env);
    const child = spawn(
      process.execPath,
      [...NODE_FLAGS, NAMAZU_BIN, 'scenario', 'earthquake', ...QUAKE, '--speed', '60'],
      {
        env: cleanEnv(env),
      },
    );
    let stdout = '';
    let stderr = '';
    let firstWhileRunning = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      if (/\n?namazu scenario: 1\/\d+ /.test(stderr) && child.exitCode === null && stdout === '')
        firstWhileRunning = true;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, stderr);
    assert.ok(firstWhileRunning, 'the first telegram was told before the command ended');
    const summary = JSON.parse(stdout);
    const lines = stderr.trim().split('\n');
    assert.equal(
      lines[0],
      `namazu scenario: event ${summary.eventId}, origin ${summary.originTime}: ${summary.telegrams.length} telegrams over ${lines[0]!.match(/over (\d+) s$/)?.[1]} s`,
    );
    assert.equal(lines.length, 1 + summary.telegrams.length);
    summary.telegrams.forEach((t: { type: string; id: string }, i: number) =>
      assert.match(
        lines[i + 1]!,
        new RegExp(
          String.raw`^namazu scenario: ${i + 1}/${summary.telegrams.length} \+\d+\.\d s ${t.type} sent as ${t.id}$`,
        ),
      ),
    );
    assert.match(summary.originTime, /T\d\d:\d\d:00\+09:00$/);
    await waitFor(() => /"command":"scenario","code":0/.test(node!.output()), {
      message: 'the server to log it',
    });
  } finally {
    await node?.stop();
    dir.remove();
  }
});
