import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { demoBanner, demoNotice, writeDemoCredentials, type DemoCredentials } from '../src/demo.ts';

// The full first start (banner on a non-terminal, file path logged) runs in test/cli/serve.test.ts.
const secrets: DemoCredentials = {
  email: 'demo@namazu.local',
  password: 'pw-secret-1',
  apiKey: 'AKe.secret-2',
  clientId: 'CId.demo',
  clientSecret: 'CSt.secret-3',
};

test('demo secrets go to a file only the owner can read, and the log line names the file only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'namazu-demo-'));
  try {
    const path = join(dir, 'demo-credentials.txt');
    writeDemoCredentials(path, demoBanner(secrets, 'http://x'));
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.match(readFileSync(path, 'utf8'), /CSt\.secret-3/);
    const notice = demoNotice('http://x', path);
    assert.ok(notice.includes(path));
    for (const s of [secrets.password, secrets.apiKey, secrets.clientSecret]) assert.ok(!notice.includes(s));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a PostgreSQL installation gets no demo account unless NAMAZU_DEMO=1', () => {
  const pg = { NAMAZU_DATABASE_URL: 'postgres://u@127.0.0.1/db' };
  assert.equal(loadConfig(pg).demo, false);
  assert.equal(loadConfig({ ...pg, NAMAZU_DEMO: '1' }).demo, true);
});
