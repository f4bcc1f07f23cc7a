import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { acceptInvitation } from '../../src/accounts/invitations.ts';
import { openDb } from '../../src/db/open.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { digestSecret } from '../../src/security/secrets.ts';
import { namazuOn } from '../support/processes.ts';

/** `namazu invite create` run as the real executable against a fresh embedded database. */

const dataDir = mkdtempSync(join(tmpdir(), 'namazu-invite-cli-'));

const namazu = (...args: string[]) => namazuOn(dataDir, ...args);

before(() => {
  for (const [email, admin] of [
    ['admin@example.com', ['--admin']],
    ['plain@example.com', []],
  ] as const) {
    const r = namazu('account', 'create', '--email', email, '--password', 'a long password', ...admin);
    assert.equal(r.status, 0, r.stderr);
  }
});
after(() => rmSync(dataDir, { recursive: true, force: true }));

test('an administrator invites an address: the token is printed once, stored as a digest, and admits one sign-up', async () => {
  const r = namazu(
    'invite',
    'create',
    '--email',
    'New@Example.com',
    '--days',
    '3',
    '--by',
    'admin@example.com',
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { token: string; path: string; email: string; expiresAt: string };
  assert.match(out.token, /^INv\.[A-Za-z0-9_-]{43}$/);
  assert.equal(out.path, `/account/signup?invitation=${encodeURIComponent(out.token)}`);
  const days = (Date.parse(out.expiresAt) - Date.now()) / 86_400_000;
  assert.ok(days > 2.99 && days <= 3, `expires in ${days} days`);

  const db = await openDb({ databaseUrl: null, dataDir, poolSize: 1 });
  try {
    const pepper = await loadPepper(db, null);
    const rows = await db.query<{ digest: string; email: string; created_by: number }>(
      'SELECT * FROM invitations',
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.digest, digestSecret(pepper, out.token));
    assert.equal(rows[0]!.email, 'new@example.com');
    const account = await acceptInvitation(db, pepper, out.token, Date.now(), {
      email: 'new@example.com',
      password: 'another long password',
    });
    assert.equal(account.email, 'new@example.com');
    await assert.rejects(
      acceptInvitation(db, pepper, out.token, Date.now(), {
        email: 'new2@example.com',
        password: 'another long password',
      }),
      /not valid/,
    );
  } finally {
    await db.close();
  }
});

test('bad usage exits 2; an invitation "by" someone who is not an administrator exits 1', () => {
  for (const args of [
    ['--days', '0'],
    ['--days', '91'],
    ['--days', 'x'],
    ['--email', 'not an address'],
  ]) {
    const r = namazu('invite', 'create', ...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^namazu invite: /);
  }
  const r = namazu('invite', 'create', '--by', 'plain@example.com');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /not an administrator/);
});
