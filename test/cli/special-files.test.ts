/**
 * What `namazu ingest` and `namazu replay` read: regular files and directories of them. A pipe or a
 * device named on the command line is refused at once; reading one waits for a writer or never ends, and in a
 * server (the admin channel runs the command there) the read would hold its event loop.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { migratedDataDir } from '../support/database.ts';
import { NAMAZU_BIN as BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { cleanEnv } from '../support/processes.ts';

/** Far beyond the few seconds a refusal takes: a command still running then waits for ever. */
const DEADLINE_MS = 30_000;

function namazu(dataDir: string, args: string[]) {
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], {
    env: cleanEnv({ NAMAZU_DATA_DIR: dataDir, NAMAZU_DEMO: '0' }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** In a folder of telegrams, a pipe is left out and the command reads nothing. */
const commands = [
  {
    command: 'ingest',
    args: [],
    leftOut: 'skipped',
    nothingRead: { ingested: 0, duplicates: 0, rejected: [], conversionFailures: [] },
  },
  {
    command: 'replay',
    args: ['--speed', '1000'],
    leftOut: 'left out',
    nothingRead: { ingested: 0, duplicates: 0, skipped: [], rejected: [] },
  },
];

for (const { command, args, leftOut, nothingRead } of commands)
  test(
    `a pipe or a device given to ${command} is refused in one line; one inside a directory is ${leftOut}`,
    { skip: process.platform === 'win32' ? 'named pipes of POSIX' : false },
    async () => {
      const work = mkdtempSync(join(tmpdir(), `namazu-${command}-files-`));
      try {
        const dataDir = join(work, 'data');
        await migratedDataDir(dataDir);
        const fifo = join(work, 'telegram.xml');
        execFileSync('mkfifo', [fifo]);
        for (const path of [fifo, '/dev/zero']) {
          const r = await namazu(dataDir, [command, ...args, path]);
          assert.equal(r.code, 2, `${command} ${path}: ${r.stderr}`);
          assert.equal(r.stderr, `namazu ${command}: ${path} is not a file or a directory\n`);
        }
        const dir = join(work, 'files');
        mkdirSync(dir);
        execFileSync('mkfifo', [join(dir, 'pipe.xml')]);
        const r = await namazu(dataDir, [command, ...args, dir]);
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(JSON.parse(r.stdout), nothingRead);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
  );

test(
  'a pipe or a device given to stations import is refused in one line',
  { skip: process.platform === 'win32' ? 'named pipes of POSIX' : false },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'namazu-stations-files-'));
    try {
      const dataDir = join(work, 'data');
      await migratedDataDir(dataDir);
      const fifo = join(work, 'stations.json');
      execFileSync('mkfifo', [fifo]);
      for (const path of [fifo, '/dev/zero']) {
        const r = await namazu(dataDir, ['stations', 'import', path]);
        assert.equal(r.code, 1, `stations import ${path}: ${r.stderr}`);
        assert.equal(r.stderr, `namazu stations: ${path} is not a file\n`);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
);
