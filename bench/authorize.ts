// Authorization endpoint throughput: a signed-in browser's GET of the consent page, a rejected
// request (redirected error), and approving (a code issued: grant + code rows in one transaction).
// Server and load generator share this process, so the figures are a lower bound.
// Usage: node --import tsx bench/authorize.ts [seconds per case] [connections]
//        NAMAZU_BENCH_DATABASE_URL=postgres://… to run on PostgreSQL instead of PGlite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount } from '../src/accounts/accounts.ts';
import { createClient } from '../src/issuer/clients.ts';
import { defaults } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { emitResult } from './result.ts';

const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 32);
const dataDir = mkdtempSync(join(tmpdir(), 'namazu-bench-authz-'));
const databaseUrl = process.env.NAMAZU_BENCH_DATABASE_URL || null;
const server = await startServer({
  ...defaults(),
  port: 0,
  host: '127.0.0.1',
  dataDir,
  databaseUrl,
  demo: false,
  logLevel: 'silent',
});
const origin = `http://127.0.0.1:${server.port}`;
const { db, pepper } = server.ctx;
const email = `bench-${Date.now()}@example.com`;
const account = await createAccount(db, { email, password: 'bench password' });
const { client } = await createClient(db, pepper, {
  accountId: account.id,
  name: 'Bench',
  type: 'public',
  redirectUris: ['http://127.0.0.1/callback'],
  grants: ['authorization_code'],
  scopes: ['telegram.list', 'telegram.data'],
});

// Sign in once through the form; every request then carries the session cookie.
const signinPage = await fetch(`${origin}/account/signin`);
const preCookie = signinPage.headers.getSetCookie()[0]!.split(';')[0]!;
const csrf = /name="csrf" value="([^"]+)"/.exec(await signinPage.text())![1]!;
const signedIn = await fetch(`${origin}/account/signin`, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: preCookie },
  body: new URLSearchParams({ csrf, return_to: '/account', email, password: 'bench password' }).toString(),
});
const cookie = signedIn.headers
  .getSetCookie()
  .find((c) => c.startsWith('namazu_session='))!
  .split(';')[0]!;

const query = new URLSearchParams({
  client_id: client.clientId,
  redirect_uri: 'http://127.0.0.1:50000/callback',
  response_type: 'code',
  scope: 'telegram.list telegram.data',
  state: 'bench-state',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
}).toString();
const authorize = `${origin}/account/oauth2/v1/auth?${query}`;
const consentHtml = await (await fetch(authorize, { headers: { cookie } })).text();
const consentCsrf = /name="csrf" value="([^"]+)"/.exec(consentHtml)![1]!;
const approveBody = new URLSearchParams({
  csrf: consentCsrf,
  request: query,
  decision: 'approve',
}).toString();

async function run(name: string, once: () => Promise<Response>, expect: number): Promise<void> {
  const latencies: number[] = [];
  let failures = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const res = await once();
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status !== expect) failures++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!.toFixed(1);
  emitResult('authorize', {
    case: name,
    engine: db.engine,
    perSecond: latencies.length / seconds,
    p50: Number(at(0.5)),
    p99: Number(at(0.99)),
    failures,
  });
  console.log(
    `${name}: ${(latencies.length / seconds).toFixed(0)} req/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms` +
      (failures ? `, ${failures} unexpected statuses` : ''),
  );
}

console.log(`${db.engine}, ${connections} connections, ${seconds} s per case`);
await run('consent page (signed in)', () => fetch(authorize, { headers: { cookie } }), 200);
await run(
  'rejected request (invalid_scope redirect)',
  () => fetch(authorize.replace('telegram.data', 'nope'), { redirect: 'manual' }),
  303,
);
await run(
  'approve (code issued)',
  () =>
    fetch(`${origin}/account/oauth2/v1/auth/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: approveBody,
    }),
  303,
);
await server.close();
rmSync(dataDir, { recursive: true, force: true });
