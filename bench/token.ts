// Token endpoint throughput: client_credentials with HTTP Basic, 32 connections, alternated round by
// round with node-oidc-provider (in memory, in a child process: bench/oidc-provider-reference.ts)
// issuing the same grant; then the same with a fresh ES256 DPoP proof per request. The server runs
// in this process; wrk (apt-get install wrk) generates the load from its own process.
//
// Usage: node --import tsx bench/token.ts [seconds] [rounds (default 3)]
//   NAMAZU_BENCH_DATABASE_URL=postgres://…  measure on PostgreSQL (a scratch database: it is migrated
//                                           and filled with a benchmark account); default: PGlite.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createAccount } from '../src/accounts/accounts.ts';
import { createClient } from '../src/issuer/clients.ts';
import { defaults } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { emitResult, wrkMs } from './result.ts';
import { median } from './stats.ts';

const seconds = Number(process.argv[2] ?? 10);
const rounds = Number(process.argv[3] ?? 3);
const REFERENCE = fileURLToPath(new URL('./oidc-provider-reference.ts', import.meta.url));
const connections = 32;
const databaseUrl = process.env.NAMAZU_BENCH_DATABASE_URL || null;
const dir = mkdtempSync(join(tmpdir(), 'namazu-bench-token-'));

if (spawnSync('wrk', ['--version']).error) {
  console.error('wrk is needed: apt-get install -y wrk');
  process.exit(1);
}

const server = await startServer({
  ...defaults(),
  port: 0,
  host: '127.0.0.1',
  dataDir: dir,
  databaseUrl,
  dbPoolSize: 20,
  demo: false,
  logLevel: 'warn',
});
const origin = `http://127.0.0.1:${server.port}`;
const tokenUrl = `${origin}/account/oauth2/v1/token`;
const { db, pepper } = server.ctx;
const account = await createAccount(db, {
  email: `bench-${randomBytes(4).toString('hex')}@example.test`,
  password: 'bench-password',
});
const { client, clientSecret } = await createClient(db, pepper, {
  accountId: account.id,
  name: 'bench',
  type: 'confidential',
  redirectUris: [],
  grants: ['client_credentials'],
  scopes: ['telegram.list'],
});
const basic = 'Basic ' + Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64');
const body = 'grant_type=client_credentials&scope=telegram.list';

interface Figures {
  requests: number;
  perSecond: number;
  p50: string;
  p99: string;
  failed: number;
}

/** Runs wrk as a child process (asynchronously: this process serves the requests meanwhile). */
async function runWrk(script: string, args: string[] = [], url = tokenUrl): Promise<Figures> {
  const path = join(dir, `s-${randomBytes(4).toString('hex')}.lua`);
  writeFileSync(path, script);
  const child = spawn('wrk', [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    path,
    url,
    ...args,
  ]);
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  await new Promise((resolve) => child.on('exit', resolve));
  const pick = (re: RegExp) => re.exec(text)?.[1] ?? '?';
  return {
    requests: Number(pick(/(\d+) requests in/)),
    perSecond: Number(pick(/Requests\/sec:\s+([\d.]+)/)),
    p50: pick(/\s50%\s+(\S+)/),
    p99: pick(/\s99%\s+(\S+)/),
    failed:
      Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0) +
      Number(/Socket errors:.*?(\d+) timeout/.exec(text)?.[1] ?? 0),
  };
}

const common = `
wrk.method = "POST"
wrk.body = "${body}"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "${basic}"
`;

function print(name: string, f: Figures) {
  emitResult('token', {
    case: name,
    engine: db.engine,
    perSecond: f.perSecond,
    p50: wrkMs(f.p50),
    p99: wrkMs(f.p99),
    failed: f.failed,
  });
  console.log(
    `${name}: ${f.perSecond.toFixed(0)} req/s, p50 ${f.p50}, p99 ${f.p99} (${f.requests} requests, ${f.failed} failed)`,
  );
}

/** node-oidc-provider in a child process, with the same client id and secret; resolves when it listens. */
async function startReference(): Promise<{ url: string; child: ChildProcess }> {
  const port = 20000 + Math.floor(Math.random() * 5000);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', REFERENCE, String(port), client.clientId, clientSecret!],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`oidc-provider reference exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/account/oauth2/v1/token`, child };
}

console.log(`engine ${db.engine}, ${connections} connections, ${seconds} s per run, wrk -t1`);
const reference = await startReference();
// Warm-up: JIT, connection pool, caches (both servers).
await runWrk(common);
await runWrk(common, [], reference.url);
const ours: Figures[] = [];
const theirs: Figures[] = [];
for (let round = 1; round <= rounds; round++) {
  ours.push(await runWrk(common));
  theirs.push(await runWrk(common, [], reference.url));
  const [a, b] = [ours.at(-1)!, theirs.at(-1)!];
  console.log(
    `round ${round}: namazu ${a.perSecond.toFixed(0)} req/s p99 ${a.p99} · node-oidc-provider ${b.perSecond.toFixed(0)} req/s p99 ${b.p99} (${(a.perSecond / b.perSecond).toFixed(2)}×)`,
  );
}
reference.child.kill('SIGTERM');
const medianOf = (fs: Figures[]): Figures => {
  const byRate = [...fs].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(fs.length / 2)]!;
  return {
    ...byRate,
    p99: `${median(fs.map((f) => wrkMs(f.p99) ?? NaN))}ms`,
    p50: `${median(fs.map((f) => wrkMs(f.p50) ?? NaN))}ms`,
  };
};
const [oursMedian, theirsMedian] = [medianOf(ours), medianOf(theirs)];
print('client_credentials, Basic', oursMedian);
console.log(
  `node-oidc-provider (in memory), client_credentials, Basic: ${theirsMedian.perSecond.toFixed(0)} req/s, p50 ${theirsMedian.p50}, p99 ${theirsMedian.p99}`,
);
console.log(
  `median of ${rounds} alternated rounds: namazu / node-oidc-provider = ${(oursMedian.perSecond / theirsMedian.perSecond).toFixed(2)}× (target ≥ 1.0×, p99 ≤ 20 ms)`,
);
emitResult('token', {
  case: 'node-oidc-provider reference',
  perSecond: theirsMedian.perSecond,
  p50: wrkMs(theirsMedian.p50),
  p99: wrkMs(theirsMedian.p99),
  failed: theirsMedian.failed,
});

// DPoP: one fresh proof (new jti) per request, generated ahead so the load generator only sends.
const key = await generateKeyPair('ES256');
const jwk = await exportJWK(key.publicKey);
const nonceProbe = await fetch(tokenUrl, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
  body,
});
await nonceProbe.text();
const probe = await fetch(tokenUrl, {
  method: 'POST',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: basic,
    dpop: await new SignJWT({
      jti: randomBytes(16).toString('base64url'),
      htm: 'POST',
      htu: tokenUrl,
      iat: Math.floor(Date.now() / 1000),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(key.privateKey),
  },
  body,
});
const nonce = probe.headers.get('dpop-nonce') ?? undefined;
await probe.text();
const count = Math.ceil(seconds * 4000);
const proofs: string[] = [];
const iat = Math.floor(Date.now() / 1000) + Math.min(50, seconds);
for (let i = 0; i < count; i++) {
  proofs.push(
    await new SignJWT({
      jti: randomBytes(16).toString('base64url'),
      htm: 'POST',
      htu: tokenUrl,
      iat,
      ...(nonce ? { nonce } : {}),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(key.privateKey),
  );
}
{
  // One proof by hand first: the run below only counts, so show what a failure looks like.
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic,
      dpop: proofs.pop()!,
    },
    body,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`DPoP request failed: ${res.status} ${text}`);
}
const proofFile = join(dir, 'proofs.txt');
writeFileSync(proofFile, proofs.join('\n') + '\n');
const dpopScript =
  common +
  `
local proofs = {}
local n = 0
function init(args)
  for line in io.lines(args[1]) do proofs[#proofs + 1] = line end
end
function request()
  n = n + 1
  -- a headers table given to wrk.format replaces wrk.headers, so copy them in
  local headers = {}
  for k, v in pairs(wrk.headers) do headers[k] = v end
  headers["DPoP"] = proofs[n] or "exhausted"
  return wrk.format(nil, nil, headers, nil)
end
`;
print(
  `client_credentials, Basic + fresh ES256 DPoP proof (nonce ${nonce ? 'on' : 'off'})`,
  await runWrk(dpopScript, [proofFile]),
);

// Let requests wrk left in flight finish before the database closes.
await new Promise((resolve) => setTimeout(resolve, 1000));
await server.close();
rmSync(dir, { recursive: true, force: true });
