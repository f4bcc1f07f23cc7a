// Cost of the Bearer token check on a data route with a warm cache, as a share of the route's time.
// 1. the authenticator alone: time per authenticate() of a cached Bearer token (in this process);
// 2. the whole route: wrk with 32 connections against a data route, giving the server's time per
//    request (1 / throughput, the process being saturated) and the latency.
// Usage: node --import tsx bench/token-bearer.ts [path, default /v2/telegram] [seconds]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuthenticator, type ResourceRequest } from '../src/access/authenticate.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { addContract } from '../src/accounts/contracts.ts';
import { createClient } from '../src/issuer/clients.ts';
import { defaults } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { emitResult, wrkMs } from './result.ts';

const path = process.argv[2] ?? '/v2/telegram';
const seconds = Number(process.argv[3] ?? 10);
if (spawnSync('wrk', ['--version']).error) {
  console.error('wrk is needed: apt-get install -y wrk');
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'namazu-bench-bearer-'));
const server = await startServer({
  ...defaults(),
  port: 0,
  host: '127.0.0.1',
  dataDir: dir,
  databaseUrl: process.env.NAMAZU_BENCH_DATABASE_URL || null,
  demo: false,
  logLevel: 'warn',
});
const { db, pepper } = server.ctx;
const origin = `http://127.0.0.1:${server.port}`;
const account = await createAccount(db, {
  email: `bearer-${Date.now()}@example.test`,
  password: 'bench-password',
});
await addContract(db, account.id, 'telegram.earthquake');
const { client, clientSecret } = await createClient(db, pepper, {
  accountId: account.id,
  name: 'bench',
  type: 'confidential',
  redirectUris: [],
  grants: ['client_credentials'],
  scopes: ['telegram.list', 'telegram.get.earthquake', 'gd.earthquake', 'contract.list'],
});
const tokenRes = await fetch(`${origin}/account/oauth2/v1/token`, {
  method: 'POST',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: 'Basic ' + Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64'),
  },
  body: 'grant_type=client_credentials&scope=telegram.list telegram.get.earthquake gd.earthquake contract.list',
});
const token = ((await tokenRes.json()) as { access_token: string }).access_token;
const authorization = `Bearer ${token}`;

// 1. The check alone, warm cache.
const auth = await createAuthenticator(server.ctx, null);
// What the data API's authentication hook hands over (src/http/authentication.ts).
const request: ResourceRequest = {
  method: 'GET',
  authorization,
  apiKey: undefined,
  dpop: [],
  urls: () => [origin + path],
};
await auth.authenticate(request);
const checks = 200_000;
let t0 = performance.now();
for (let i = 0; i < checks; i++) await auth.authenticate(request);
const checkUs = ((performance.now() - t0) * 1000) / checks;

// 2. The route under load.
const probe = await fetch(origin + path, { headers: { authorization } });
await probe.text();
if (probe.status !== 200)
  console.warn(`warning: GET ${path} answered ${probe.status}; the figures below are for that answer`);
const script = join(dir, 'bearer.lua');
writeFileSync(script, `wrk.headers["Authorization"] = "${authorization}"\n`);
async function wrk(connections: number): Promise<string> {
  const child = spawn('wrk', [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    script,
    origin + path,
  ]);
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (text += c));
  await new Promise((resolve) => child.on('exit', resolve));
  return text;
}
await wrk(32); // warm-up
t0 = performance.now();
const out = await wrk(32);
const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
const p50 = /\s50%\s+(\S+)/.exec(out)?.[1];
const p99 = /\s99%\s+(\S+)/.exec(out)?.[1];
const routeUs = 1e6 / rps;
console.log(`engine ${db.engine}; route GET ${path} (status ${probe.status}) with Bearer, 32 connections`);
console.log(`Bearer check, warm cache: ${checkUs.toFixed(2)} µs per request (${checks} checks)`);
console.log(
  `route: ${rps.toFixed(0)} req/s = ${routeUs.toFixed(0)} µs of server time per request; p50 ${p50}, p99 ${p99}`,
);
console.log(`the check is ${((100 * checkUs) / routeUs).toFixed(2)}% of the route's time`);
emitResult('token-bearer', {
  engine: db.engine,
  path,
  checkMicroseconds: checkUs,
  perSecond: rps,
  p50: wrkMs(p50),
  p99: wrkMs(p99),
  checkShare: checkUs / routeUs,
});

await new Promise((resolve) => setTimeout(resolve, 500));
await auth.close();
await server.close();
rmSync(dir, { recursive: true, force: true });
