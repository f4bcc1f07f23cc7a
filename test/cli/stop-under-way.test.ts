/**
 * Stopping what runs in a server (docs/operations.md, "Stopping"; docs/sources.md): Ctrl-C on
 * `namazu scenario` or `namazu replay --loop` stops what the command started in the server, and a
 * server stopped while a scenario and a replay run in it answers 503 on /readyz at once and exits
 * cleanly well within the systemd unit's TimeoutStopSec.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { STOP_GRACE_MS } from '../../src/cli/serve.ts';
import { migratedDataDir } from '../support/database.ts';
import { jmaXmlRoot } from '../support/fixtures.ts';
import { NAMAZU_BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { cleanEnv, serve, type ServeProcess } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';

const UNIT = fileURLToPath(new URL('../../deploy/systemd/namazu.service', import.meta.url));
const TIMEOUT_STOP_SEC = Number(/^TimeoutStopSec=(\d+)$/m.exec(readFileSync(UNIT, 'utf8'))![1]);

const QUAKE = ['scenario', 'earthquake', '--lat', '35.7', '--lon', '139.7', '--depth', '40'];
/** Issued in 2009 and in 2024: at --speed 1 the second is due years after the first. */
const REPLAYED = [
  join(jmaXmlRoot, 'jma-official-samples/01_01_01_091210_VGSK50.xml'),
  join(jmaXmlRoot, 'jma-official-samples/32-35_04_04_240613_VXSE53.xml'),
];
/** How long a log line or an exit may take to be seen through the pipes of a loaded machine. */
const SEEN_MS = 15_000;

interface Command {
  child: ChildProcess;
  /** Resolves with the exit status and what the command printed. */
  ended: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `namazu <args>` on the data directory, left running. */
function start(dataDir: string, args: string[]): Command {
  const child = spawn(process.execPath, [...NODE_FLAGS, NAMAZU_BIN, ...args], {
    env: cleanEnv({ NAMAZU_DATA_DIR: dataDir, NAMAZU_DEMO: 'false' }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const ended = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, ended };
}

/** Lines the server logged about admin commands named `command`, with the given message. */
const logged = (server: ServeProcess, command: string, msg: string) =>
  server
    .output()
    .split('\n')
    .filter((line) => line.includes(`"command":"${command}"`) && line.includes(`"msg":"${msg}"`));

async function serverLogs(server: ServeProcess, command: string, msg: string): Promise<string[]> {
  return waitFor(
    () => {
      const lines = logged(server, command, msg);
      return lines.length > 0 ? lines : null;
    },
    { timeout: SEEN_MS, message: `the server to log ${command}: ${msg}` },
  );
}

/** The command's exit, failing the test when it does not end within SEEN_MS. */
async function endOf(command: Command, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${SEEN_MS} ms`)), SEEN_MS);
  });
  try {
    return await Promise.race([command.ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('Ctrl-C on a scenario or a replay loop run in the server stops it there', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'namazu-stop-'));
  const dataDir = join(dir, 'data');
  const commands: Command[] = [];
  let server: ServeProcess | undefined;
  try {
    await migratedDataDir(dataDir);
    server = await serve({ NAMAZU_DATA_DIR: dataDir });

    const scenario = start(dataDir, [...QUAKE, '--magnitude', '7.1', '--speed', '1']);
    commands.push(scenario);
    await serverLogs(server, 'scenario', 'admin command started');
    scenario.child.kill('SIGINT');
    await endOf(scenario, 'the interrupted scenario command');
    // Its end in the server is logged: nothing of it is left to issue telegrams.
    const [scenarioEnd] = await serverLogs(server, 'scenario', 'admin command');
    assert.match(scenarioEnd!, /"code":1/);

    const loop = start(dataDir, ['replay', '--loop', '--speed', '1', ...REPLAYED]);
    commands.push(loop);
    await serverLogs(server, 'replay', 'admin command started');
    loop.child.kill('SIGINT');
    // Interrupting is how a loop ends: status 0.
    const looped = await endOf(loop, 'the interrupted replay loop');
    assert.equal(looped.code, 0, looped.stderr);
    const [replayEnd] = await serverLogs(server, 'replay', 'admin command');
    assert.match(replayEnd!, /"code":1/);
  } finally {
    for (const { child } of commands) if (child.exitCode === null) child.kill('SIGKILL');
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SIGTERM with a scenario and a replay under way: 503 at once, both stopped, exit 0 well within TimeoutStopSec', async () => {
  assert.ok(STOP_GRACE_MS < TIMEOUT_STOP_SEC * 1000, 'the grace period ends before systemd kills');
  const dir = mkdtempSync(join(tmpdir(), 'namazu-stop-'));
  const dataDir = join(dir, 'data');
  const commands: Command[] = [];
  let server: ServeProcess | undefined;
  try {
    await migratedDataDir(dataDir);
    server = await serve({ NAMAZU_DATA_DIR: dataDir });
    const scenario = start(dataDir, [...QUAKE, '--magnitude', '6.5', '--speed', '1']);
    const replay = start(dataDir, ['replay', '--speed', '1', ...REPLAYED]);
    commands.push(scenario, replay);
    await serverLogs(server, 'scenario', 'admin command started');
    await serverLogs(server, 'replay', 'admin command started');

    const started = performance.now();
    server.child.kill('SIGTERM');
    await waitFor(() => server!.output().includes('"shutting down"'), {
      timeout: SEEN_MS,
      message: 'the server to log that it shuts down',
    });
    // Not ready from the moment the stop began: 503, or no longer listening at all.
    const ready = await fetch(`${server.url}/readyz`).then(
      (res) => res.status,
      () => 'refused',
    );
    assert.ok(ready === 503 || ready === 'refused', `/readyz answered ${ready} while stopping`);

    const limitMs = (TIMEOUT_STOP_SEC * 1000) / 2;
    await waitFor(() => server!.child.exitCode !== null, {
      timeout: limitMs,
      interval: 50,
      message: `the server to exit within half of TimeoutStopSec=${TIMEOUT_STOP_SEC}`,
    });
    const seconds = (performance.now() - started) / 1000;
    assert.equal(server.child.exitCode, 0, server.output());
    assert.ok(seconds < limitMs / 1000, `stopped in ${seconds.toFixed(1)} s`);

    // Each command hears why it stopped; the replay says what it had done.
    const scenarioRun = await endOf(scenario, 'the scenario command');
    assert.equal(scenarioRun.code, 1);
    // Its progress lines (docs/sources.md), then why it stopped.
    const scenarioLines = scenarioRun.stderr.trimEnd().split('\n');
    assert.equal(scenarioLines.pop(), 'namazu scenario: stopped: the server is shutting down');
    for (const line of scenarioLines) assert.match(line, /^namazu scenario: (event |\d+\/\d+ )/);
    const replayRun = await endOf(replay, 'the replay command');
    assert.equal(replayRun.code, 1);
    const replayLines = replayRun.stderr.trimEnd().split('\n');
    assert.equal(replayLines.pop(), 'namazu replay: stopped: the server is shutting down');
    for (const line of replayLines) assert.match(line, /^namazu replay: (\d+ telegrams |\d+\/\d+ )/);
    const pass = JSON.parse(replayRun.stdout);
    assert.ok(pass.ingested <= 1, replayRun.stdout);
    assert.deepEqual(pass.rejected, []);
  } finally {
    for (const { child } of commands) if (child.exitCode === null) child.kill('SIGKILL');
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
