import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { digestSecret } from '../../src/security/secrets.ts';
import { openDb } from '../../src/db/open.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { parseFlags, UsageError } from '../../src/cli/args.ts';
import { clientFlags, clientFromFlags } from '../../src/cli/client.ts';
import { namazuOn } from '../support/processes.ts';

/** `namazu client create` run as the real executable against a fresh embedded database. */

const dataDir = mkdtempSync(join(tmpdir(), 'namazu-client-cli-'));
const email = 'maker@example.com';

const namazu = (...args: string[]) => namazuOn(dataDir, ...args);

before(() => {
  const r = namazu('account', 'create', '--email', email, '--password', 'a long password');
  assert.equal(r.status, 0, r.stderr);
});
after(() => rmSync(dataDir, { recursive: true, force: true }));

const confidential = [
  'client',
  'create',
  '--account',
  email,
  '--name',
  'Quake App',
  '--type',
  'confidential',
  '--redirect-uri',
  'https://app.example/cb',
  '--redirect-uri',
  'http://127.0.0.1/callback',
  '--grant',
  'authorization_code',
  '--grant',
  'refresh_token',
  '--grant',
  'client_credentials',
  '--scopes',
  'telegram.list telegram.data',
  '--contact',
  'dev@app.example',
  '--app-url',
  'https://app.example/',
  '--terms-url',
  'https://app.example/terms',
  '--privacy-url',
  'https://app.example/privacy',
];

test('confidential client: one JSON object with id and secret; only the digest is stored', async () => {
  const r = namazu(...confidential);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { client_id: string; client_secret: string };
  assert.deepEqual(Object.keys(out), ['client_id', 'client_secret']);
  assert.match(out.client_id, /^CId\.[A-Za-z0-9_-]{43}$/);
  assert.match(out.client_secret, /^CSt\.[A-Za-z0-9_-]{43}$/);

  const db = await openDb({ databaseUrl: null, dataDir, poolSize: 1 });
  try {
    const pepper = await loadPepper(db, null);
    const rows = await db.query<Record<string, unknown>>('SELECT * FROM oauth_clients WHERE client_id = $1', [
      out.client_id,
    ]);
    const row = rows[0]!;
    assert.equal(row.secret_digest, digestSecret(pepper, out.client_secret));
    assert.equal(row.name, 'Quake App');
    assert.equal(row.type, 'confidential');
    assert.deepEqual(row.redirect_uris, ['https://app.example/cb', 'http://127.0.0.1/callback']);
    assert.deepEqual(row.grants, ['authorization_code', 'refresh_token', 'client_credentials']);
    assert.deepEqual(row.scopes, ['telegram.list', 'telegram.data']);
    assert.equal(row.contact, 'dev@app.example');
    assert.equal(row.app_url, 'https://app.example/');
    assert.equal(row.terms_url, 'https://app.example/terms');
    assert.equal(row.privacy_url, 'https://app.example/privacy');
    assert.equal(row.refresh_rotation, 'default');
  } finally {
    await db.close();
  }
});

test('public client: no secret; --refresh-rotation sets its rotation', async () => {
  const r = namazu(
    'client',
    'create',
    '--account',
    email,
    '--name',
    'Native',
    '--type',
    'public',
    '--redirect-uri',
    'http://127.0.0.1/callback',
    '--grant',
    'authorization_code',
    '--scopes',
    'telegram.list',
    '--refresh-rotation',
    'on',
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { client_id: string };
  assert.deepEqual(Object.keys(out), ['client_id']);
  const db = await openDb({ databaseUrl: null, dataDir, poolSize: 1 });
  try {
    const rows = await db.query<{ refresh_rotation: string }>(
      'SELECT refresh_rotation FROM oauth_clients WHERE client_id = $1',
      [out.client_id],
    );
    assert.equal(rows[0]!.refresh_rotation, 'on');
  } finally {
    await db.close();
  }
});

test('bad flags are refused with a message naming the flag', () => {
  const flags = (args: string[]) => parseFlags(args, clientFlags).values;
  const replace = (flag: string, value: string) => {
    const args = confidential.slice(2);
    args[args.indexOf(flag) + 1] = value;
    return args;
  };
  const cases: [string[], RegExp][] = [
    [replace('--type', 'secret'), /--type must be confidential or public/],
    [replace('--scopes', 'telegram.list nope'), /unknown scope/],
    [replace('--redirect-uri', 'http://app.example/cb'), /--redirect-uri .* may use http only/],
    [replace('--redirect-uri', 'javascript:alert(1)'), /--redirect-uri/],
    [replace('--grant', 'password'), /--grant must be one of/],
    [replace('--name', 'bad\u0001name'), /--name must be 1 to 100 printable characters/],
    [replace('--app-url', 'ftp://app.example/'), /--app-url must be an http\(s\) URL/],
    [
      [...confidential.slice(2), '--refresh-rotation', 'sometimes'],
      /--refresh-rotation must be one of default, on, off, got "sometimes"/,
    ],
    [
      [
        '--account',
        email,
        '--name',
        'P',
        '--type',
        'public',
        '--grant',
        'client_credentials',
        '--scopes',
        'x.y',
      ],
      /public clients cannot use the client_credentials grant/,
    ],
    [
      [
        '--account',
        email,
        '--name',
        'R',
        '--type',
        'public',
        '--grant',
        'refresh_token',
        '--scopes',
        'telegram.list',
      ],
      /refresh_token needs --grant authorization_code/,
    ],
    [
      [
        '--account',
        email,
        '--name',
        'X',
        '--type',
        'confidential',
        '--grant',
        'authorization_code',
        '--scopes',
        'telegram.list',
      ],
      /needs at least one --redirect-uri/,
    ],
    [['--account', email, '--type', 'public'], /--name is required/],
  ];
  for (const [args, message] of cases) {
    assert.throws(
      () => clientFromFlags(flags(args)),
      (err: unknown) => err instanceof UsageError && message.test(err.message),
    );
  }
  assert.throws(() => flags([...confidential.slice(2), '--bogus', 'x']), UsageError);
});

test('bad usage exits 2 with one line on stderr and nothing on stdout', () => {
  for (const args of [
    [
      'client',
      'create',
      '--account',
      email,
      '--name',
      'P',
      '--type',
      'public',
      '--grant',
      'client_credentials',
      '--scopes',
      'telegram.list',
    ],
    ['client', 'list'],
  ]) {
    const r = namazu(...args);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});

test('unknown account exits 1', () => {
  const args = [...confidential];
  args[args.indexOf('--account') + 1] = 'nobody@example.com';
  const r = namazu(...args);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /no account with email nobody@example.com/);
});
