import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createAccount, findAccountByEmail } from './accounts/accounts.ts';
import { createApiKey } from './accounts/api-keys.ts';
import { addContract } from './accounts/contracts.ts';
import { plans } from './accounts/plans.ts';
import { createClient } from './issuer/clients.ts';
import { knownScopes } from './scopes.ts';
import type { Db } from './db/types.ts';

export const DEMO_EMAIL = 'demo@namazu.local';

export interface DemoCredentials {
  email: string;
  password: string;
  apiKey: string;
  clientId: string;
  clientSecret: string;
}

/**
 * On the first start of a new installation: a demo account with every plan contracted, an API key
 * with every scope, and a confidential OAuth client for all three grants. Returns null when the
 * installation has been set up before (the marker row exists) or the account exists.
 */
export async function createDemoOnce(db: Db, pepper: Buffer): Promise<DemoCredentials | null> {
  return db.tx(async (q) => {
    const marked = await q.query(
      `INSERT INTO server_settings (name, value) VALUES ('demo_created', now()::text)
       ON CONFLICT (name) DO NOTHING RETURNING name`,
    );
    if (marked.length === 0 || (await findAccountByEmail(q, DEMO_EMAIL))) return null;
    const password = randomBytes(12).toString('base64url');
    const account = await createAccount(q, { email: DEMO_EMAIL, password, name: 'Demo', isAdmin: true });
    for (const p of plans) await addContract(q, account.id, p.classification);
    const scopes = [...knownScopes];
    const { key } = await createApiKey(q, pepper, account.id, scopes);
    const { client, clientSecret } = await createClient(q, pepper, {
      accountId: account.id,
      name: 'Namazu demo client',
      type: 'confidential',
      redirectUris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
      grants: ['authorization_code', 'refresh_token', 'client_credentials'],
      scopes,
      contact: DEMO_EMAIL,
      appUrl: 'http://127.0.0.1/',
      termsUrl: 'http://127.0.0.1/terms',
      privacyUrl: 'http://127.0.0.1/privacy',
    });
    return {
      email: DEMO_EMAIL,
      password,
      apiKey: key,
      clientId: client.clientId,
      clientSecret: clientSecret!,
    };
  });
}

/**
 * Where the demo credentials go when standard output is not a terminal (a log collector may be
 * reading it): a file only the owner can read, in the data directory (or the working directory on
 * PostgreSQL). The banner on standard output then names the file instead of the secrets.
 */
export function demoCredentialsPath(dataDir: string, embedded: boolean): string {
  return resolve(embedded ? dataDir : '.', 'demo-credentials.txt');
}

export function writeDemoCredentials(path: string, banner: string): void {
  // 0600 from creation: the secrets are never readable by others, not even for a moment.
  writeFileSync(path, banner.trimStart(), { mode: 0o600, flag: 'w' });
  chmodSync(path, 0o600);
}

/**
 * What the commands printed for the operator add to reach this server's embedded database when run
 * from the checkout: nothing on the default `./data`, else `--data-dir` and the directory. On
 * PostgreSQL nothing: the URL holds a password, and the operator's commands take it from the
 * environment they set it in.
 */
export function commandTarget(dataDir: string, embedded: boolean): string {
  if (!embedded) return '';
  const dir = resolve(dataDir);
  return dir === resolve('data') ? '' : ` --data-dir ${shellWord(dir)}`;
}

/** A path as one word of a shell command line. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

/** How to get telegrams into a new installation (docs/sources.md). */
function gettingData(target: string): string[] {
  return [
    '  Data:           none yet. An earthquake on demand (訓練, out of /v2/gd/*; --as-real for 通常):',
    `    npx namazu scenario earthquake --lat 35.7 --lon 139.7 --depth 40 --magnitude 7.1 --speed 10${target}`,
    '  Real telegrams (an EEW, an earthquake, a tsunami, a warning) again, times moved to now, within half a minute:',
    `    npx namazu replay --as-test samples/telegrams${target}`,
    '  訓練 telegrams reach lists, sockets, streams and webhooks that ask for test=including (test: "including").',
    '  Live data: NAMAZU_SOURCES (the JMA feed or an upstream service), see docs/sources.md.',
  ];
}

/**
 * The banner for a standard output that is not a terminal: addresses, and where the secrets are.
 * `target` is commandTarget's.
 */
export function demoNotice(origin: string, credentialsPath: string, target = ''): string {
  return [
    '',
    'Namazu is running with a demo setup (set NAMAZU_DEMO=0 to skip it on a new installation).',
    `  Service:        ${origin}  (OAuth metadata: ${origin}/.well-known/oauth-authorization-server)`,
    `  API reference:  ${origin}/reference`,
    `  Console:        ${origin}/account  (sign in with the demo account)`,
    `  Credentials:    ${credentialsPath}  (account password, API key, OAuth client secret; readable only by you)`,
    ...gettingData(target),
    '',
  ].join('\n');
}

/** The text printed once after the first start: where things are and a ready curl line (`target`: commandTarget's). */
export function demoBanner(d: DemoCredentials, origin: string, target = ''): string {
  return [
    '',
    'Namazu is running with a demo setup (shown once; set NAMAZU_DEMO=0 to skip it on a new installation).',
    `  Service:        ${origin}  (OAuth metadata: ${origin}/.well-known/oauth-authorization-server)`,
    `  API reference:  ${origin}/reference`,
    `  Console:        ${origin}/account  (sign in with this account)`,
    `  Account:        ${d.email} / ${d.password}  (admin, every plan contracted)`,
    `  API key:        ${d.apiKey}`,
    `  OAuth client:   ${d.clientId}`,
    `  Client secret:  ${d.clientSecret}`,
    '  Try:',
    `    curl -s '${origin}/v2/contract' -u '${d.apiKey}:'`,
    `    curl -s '${origin}/account/oauth2/v1/token' -u '${d.clientId}:${d.clientSecret}' -d grant_type=client_credentials -d scope=telegram.list`,
    ...gettingData(target),
    '',
  ].join('\n');
}
