// Boots the real server (test/support: a fresh PGlite, or PostgreSQL when NAMAZU_TEST_DATABASE_URL
// is set) with the clients the OAuth tests share: confidential C1, C2, CC and public native P1.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AuthorizationServer } from 'oauth4webapi';
import type { Account } from '../../src/accounts/accounts.ts';
import { createClient, type NewClient, type OAuthClient } from '../../src/issuer/clients.ts';
import { issueCode, type CodeRequest } from '../../src/issuer/codes.ts';
import { s256Challenge } from '../../src/issuer/pkce.ts';
import { ManualClock } from '../../src/clock.ts';
import type { Config } from '../../src/config.ts';
import { testFetch } from './fetch.ts';
import { startTestServer, type TestServer } from './server.ts';

export interface TestClient {
  client: OAuthClient;
  id: string;
  secret: string | null;
}

export interface AuthHarness {
  server: TestServer;
  clock: ManualClock;
  /** http://127.0.0.1:<port> */
  origin: string;
  tokenUrl: string;
  revokeUrl: string;
  introspectUrl: string;
  account: Account;
  C1: TestClient;
  C2: TestClient;
  CC: TestClient;
  P1: TestClient;
  addClient(input: Partial<NewClient> & Pick<NewClient, 'type' | 'grants'>): Promise<TestClient>;
  /** A code as the authorization endpoint would issue it (PKCE S256 for P1 by default). */
  code(
    client: TestClient,
    o?: Partial<CodeRequest> & { verifier?: string | null },
  ): Promise<{ code: string; verifier: string | null; grantId: number }>;
  close(): Promise<void>;
}

export const ALL_SCOPES = [
  'telegram.list',
  'telegram.data',
  'telegram.get.earthquake',
  'contract.list',
  'gd.earthquake',
  'parameter.earthquake',
  'parameter.tsunami',
];

export function newVerifier(): string {
  return randomBytes(32).toString('base64url');
}

export async function startAuthHarness(
  overrides: Partial<Config> = {},
  clock = new ManualClock(),
  { listen = true }: { listen?: boolean } = {},
): Promise<AuthHarness> {
  const server = await startTestServer({ clock, listen, config: { dpopNonce: false, ...overrides } });
  const { db, pepper } = server.ctx;
  const origin = server.url;
  const tag = randomBytes(6).toString('hex');
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });

  async function addClient(
    input: Partial<NewClient> & Pick<NewClient, 'type' | 'grants'>,
  ): Promise<TestClient> {
    const { client, clientSecret } = await createClient(db, pepper, {
      accountId: account.id,
      name: `client ${tag}`,
      redirectUris: ['https://app.example/cb'],
      scopes: ALL_SCOPES,
      ...input,
    });
    return { client, id: client.clientId, secret: clientSecret };
  }

  const C1 = await addClient({
    type: 'confidential',
    grants: ['authorization_code', 'refresh_token', 'client_credentials'],
  });
  const C2 = await addClient({
    type: 'confidential',
    grants: ['authorization_code', 'refresh_token', 'client_credentials'],
  });
  const CC = await addClient({ type: 'confidential', grants: ['client_credentials'], redirectUris: [] });
  const P1 = await addClient({
    type: 'public',
    grants: ['authorization_code', 'refresh_token'],
    redirectUris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
  });

  return {
    server,
    clock,
    origin,
    tokenUrl: `${origin}/account/oauth2/v1/token`,
    revokeUrl: `${origin}/account/oauth2/v1/revoke`,
    introspectUrl: `${origin}/account/oauth2/v1/introspect`,
    account,
    C1,
    C2,
    CC,
    P1,
    addClient,
    async code(client, o = {}) {
      const verifier =
        o.verifier === undefined ? (client.client.type === 'public' ? newVerifier() : null) : o.verifier;
      const { code, grantId } = await issueCode(db, pepper, clock, {
        clientId: client.id,
        accountId: account.id,
        redirectUri: client.client.redirectUris[0] ?? null,
        scopes: ['telegram.list', 'telegram.data'],
        codeChallenge: verifier === null ? null : s256Challenge(verifier),
        codeChallengeMethod: verifier === null ? null : 'S256',
        dpopJkt: null,
        ...o,
      });
      return { code, verifier, grantId };
    },
    close: () => server.close(),
  };
}

/** POSTs a form (raw, for malformed cases) and returns status, headers and parsed JSON (if any). */
export async function postForm(
  url: string,
  form: Record<string, string | string[]> | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> | null; text: string }> {
  let body: string;
  if (typeof form === 'string') body = form;
  else {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) p.append(k, one);
    body = p.toString();
  }
  const res = await testFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/**
 * POSTs a form as the client authenticates: Basic (Appendix B) for a confidential client,
 * `client_id` in the body for a public one.
 */
export function postAsClient(client: TestClient, url: string, form: Record<string, string>) {
  return client.secret
    ? postForm(url, form, { authorization: basic(client.id, client.secret) })
    : postForm(url, { client_id: client.id, ...form });
}

/** Redeems a fresh code of the client (with its PKCE verifier when it has one); returns the tokens. */
export async function tokensFor(
  h: AuthHarness,
  client: TestClient,
): Promise<{ access: string; refresh: string }> {
  const { code, verifier } = await h.code(client);
  const r = await postAsClient(client, h.tokenUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.client.redirectUris[0]!,
    ...(verifier ? { code_verifier: verifier } : {}),
  });
  if (r.status !== 200) throw new Error(`code redemption failed: ${r.status} ${r.text}`);
  return { access: r.json!.access_token as string, refresh: r.json!.refresh_token as string };
}

/** RFC 6749 Appendix B: form-urlencode, then Basic. */
export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return 'Basic ' + Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64');
}

/** Basic without the Appendix B encoding (what many clients send). */
export function basicPlain(id: string, secret: string): string {
  return 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64');
}

/** The authorization server as oauth4webapi sees it (plain http is allowed for loopback tests). */
export function serverMeta(h: AuthHarness): AuthorizationServer {
  return {
    issuer: h.origin,
    token_endpoint: h.tokenUrl,
    revocation_endpoint: h.revokeUrl,
    introspection_endpoint: h.introspectUrl,
  };
}

/** Whether a token is live, asked through RFC 7662 introspection as C2 (a confidential client). */
export async function isActive(h: AuthHarness, token: string): Promise<boolean> {
  const r = await postForm(h.introspectUrl, { token }, { authorization: basic(h.C2.id, h.C2.secret!) });
  if (r.status !== 200) throw new Error(`introspection failed: ${r.status} ${r.text}`);
  return r.json!.active === true;
}

/**
 * A POST through node:http, for what fetch cannot send: a header repeated on several lines, or a
 * Host header of the test's choosing.
 */
export function rawPost(
  url: string,
  body: string,
  headers: Record<string, string | string[]>,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  rawHeaders: string[];
  json: Record<string, unknown>;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': Buffer.byteLength(body),
        ...headers,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          json: JSON.parse(text),
        }),
      );
    });
    req.end(body);
  });
}
