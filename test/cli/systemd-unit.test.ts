/**
 * deploy/systemd/namazu.service (docs/operations.md, "Running as a service"): the hardening and
 * restart settings it promises, settings the server accepts, `systemd-analyze verify` where the tool
 * is installed, and a stop by SIGTERM that ends well within the unit's TimeoutStopSec.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase } from '../support/database.ts';
import { serve } from '../support/processes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UNIT = join(ROOT, 'deploy/systemd/namazu.service');
const text = readFileSync(UNIT, 'utf8');

/** Every `Key=value` of a section, in order (a key may repeat). */
function section(name: string): [string, string][] {
  const out: [string, string][] = [];
  let current = '';
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(t);
    if (header) current = header[1]!;
    else if (current === name) {
      const at = t.indexOf('=');
      out.push([t.slice(0, at), t.slice(at + 1)]);
    }
  }
  return out;
}

const service = section('Service');
const value = (key: string) => service.filter(([k]) => k === key).map(([, v]) => v);
const one = (key: string) => {
  const v = value(key);
  assert.equal(v.length, 1, `${key} once in [Service]`);
  return v[0]!;
};

test('the unit runs as its own user in its state directory, hardened, restarted on failure', () => {
  assert.equal(one('User'), 'namazu');
  assert.equal(one('StateDirectory'), 'namazu');
  assert.equal(one('StateDirectoryMode'), '0700');
  for (const [key, expected] of Object.entries({
    NoNewPrivileges: 'yes',
    ProtectSystem: 'strict',
    ProtectHome: 'yes',
    PrivateTmp: 'yes',
    PrivateDevices: 'yes',
    RestrictAddressFamilies: 'AF_UNIX AF_INET AF_INET6',
    CapabilityBoundingSet: '',
    Restart: 'on-failure',
    KillSignal: 'SIGTERM',
    KillMode: 'mixed',
  }))
    assert.equal(one(key), expected, key);
  assert.match(one('ExecStart'), /^\/usr\/bin\/node \/opt\/namazu\/bin\/namazu\.js serve$/);
  assert.ok(Number(one('TimeoutStopSec')) >= 10);
  assert.deepEqual(section('Install'), [['WantedBy', 'multi-user.target']]);

  // Its settings are ones the server accepts, and the data directory is the state directory.
  const env = Object.fromEntries(
    value('Environment').map((assignment) => {
      const at = assignment.indexOf('=');
      return [assignment.slice(0, at), assignment.slice(at + 1)];
    }),
  );
  const config = loadConfig(env);
  assert.equal(config.dataDir, `/var/lib/${one('StateDirectory')}`);
  assert.equal(one('WorkingDirectory'), config.dataDir);
  assert.equal(config.demo, false);
});

const analyze = spawnSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' }).stdout.trim();

test(
  'systemd-analyze verify accepts the unit',
  { skip: analyze === '' ? 'systemd-analyze is not installed here (Debian package systemd)' : false },
  () => {
    // verify checks that ExecStart's program exists: point it at this checkout and this node.
    const dir = mkdtempSync(join(tmpdir(), 'namazu-unit-'));
    try {
      const unit = join(dir, 'namazu.service');
      writeFileSync(
        unit,
        text
          .replace('/usr/bin/node', process.execPath)
          .replace('/opt/namazu/', ROOT.endsWith('/') ? ROOT : ROOT + '/'),
      );
      const r = spawnSync(analyze, ['verify', unit], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      // Unknown or misplaced keys are only warnings for systemd: none may be printed about the unit.
      const aboutUnit = r.stderr.split('\n').filter((l) => l.includes('namazu.service'));
      assert.deepEqual(aboutUnit, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('SIGTERM stops the server cleanly well within TimeoutStopSec', async () => {
  const database = await createTestDatabase();
  try {
    const server = await serve(
      database.databaseUrl
        ? { NAMAZU_DATABASE_URL: database.databaseUrl }
        : { NAMAZU_DATA_DIR: database.dataDir },
    );
    // A client holding a keep-alive connection does not hold the stop.
    const res = await fetch(`${server.url}/healthz`);
    await res.arrayBuffer();
    const started = performance.now();
    const code = await server.stop();
    const seconds = (performance.now() - started) / 1000;
    assert.equal(code, 0, server.output());
    assert.ok(
      seconds < Number(one('TimeoutStopSec')) / 2,
      `stopped in ${seconds.toFixed(1)} s, TimeoutStopSec=${one('TimeoutStopSec')}`,
    );
  } finally {
    await database.drop();
  }
});
