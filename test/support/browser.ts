import { createAccount } from '../../src/accounts/accounts.ts';
import { createClient, type NewClient, type OAuthClient } from '../../src/issuer/clients.ts';
import { ManualClock } from '../../src/clock.ts';
import { testFetch } from './fetch.ts';
import { startTestServer, type TestServer } from './server.ts';
import * as openid from 'openid-client';

/**
 * A running service (test/support: fresh PGlite, or PostgreSQL with NAMAZU_TEST_DATABASE_URL) with
 * the clients the OAuth tests share: an account that signs in, confidential clients C1 and C2,
 * client-credentials-only CC, and public native client P1. The clock only moves when told to.
 */
export interface Harness {
  server: TestServer;
  clock: ManualClock;
  origin: string;
  user: { id: number; email: string; password: string };
  clients: Record<'C1' | 'C2' | 'CC' | 'P1', { client: OAuthClient; secret: string | null }>;
  close(): Promise<void>;
}

const allScopes = [
  'telegram.list',
  'telegram.data',
  'telegram.get.earthquake',
  'contract.list',
  'parameter.earthquake',
  'parameter.tsunami',
];

export async function startHarness({ listen = true }: { listen?: boolean } = {}): Promise<Harness> {
  const clock = new ManualClock();
  const server = await startTestServer({ clock, listen });
  const { db, pepper } = server.ctx;
  const password = 'correct horse battery staple';
  const account = await createAccount(db, { email: 'user@example.com', password, name: 'User' });
  const { account: maker } = await server.createAccount();
  const make = async (input: Omit<NewClient, 'accountId'>) => {
    const { client, clientSecret } = await createClient(db, pepper, { accountId: maker.id, ...input });
    return { client, secret: clientSecret };
  };
  const web = {
    contact: 'dev@app.example',
    appUrl: 'https://app.example/',
    termsUrl: 'https://app.example/terms',
    privacyUrl: 'https://app.example/privacy',
  };
  const clients = {
    C1: await make({
      name: 'App One',
      type: 'confidential',
      redirectUris: ['https://app.example/cb'],
      grants: ['authorization_code', 'refresh_token', 'client_credentials'],
      scopes: allScopes,
      ...web,
    }),
    C2: await make({
      name: 'App Two',
      type: 'confidential',
      redirectUris: ['https://two.example/cb', 'https://two.example/other'],
      grants: ['authorization_code', 'refresh_token'],
      scopes: allScopes,
      ...web,
    }),
    CC: await make({
      name: 'Machine',
      type: 'confidential',
      redirectUris: ['https://cc.example/cb'],
      grants: ['client_credentials'],
      scopes: allScopes,
    }),
    P1: await make({
      name: 'Native App',
      type: 'public',
      redirectUris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
      grants: ['authorization_code', 'refresh_token'],
      scopes: allScopes,
      contact: 'native@app.example',
      appUrl: 'https://native.example/',
      termsUrl: 'https://native.example/terms',
      privacyUrl: 'https://native.example/privacy',
    }),
  };
  return {
    server,
    clock,
    origin: server.url,
    user: { id: account.id, email: account.email, password },
    clients,
    close: () => server.close(),
  };
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' };
const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|#96);/g, (_, e: string) => entities[e]!);

export interface ParsedForm {
  action: string;
  method: string;
  /** Hidden inputs and the named submit buttons' values (name → values). */
  fields: [string, string][];
  buttons: [string, string][];
}

function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescape(m[1]!) : null;
}

/** The forms of a page as a browser would submit them. */
export function parseForms(html: string): ParsedForm[] {
  const forms: ParsedForm[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const fields: [string, string][] = [];
    const buttons: [string, string][] = [];
    for (const input of m[2]!.matchAll(/<(input|button)\b([^>]*)>/g)) {
      const name = attr(input[2]!, 'name');
      const value = attr(input[2]!, 'value') ?? '';
      if (name === null) continue;
      if (input[1] === 'button') buttons.push([name, value]);
      else if (attr(input[2]!, 'type') === 'hidden') fields.push([name, value]);
    }
    forms.push({
      action: attr(m[1]!, 'action') ?? '',
      method: attr(m[1]!, 'method') ?? 'get',
      fields,
      buttons,
    });
  }
  return forms;
}

/** A user agent with a cookie jar; redirects are returned, not followed, so tests see each step. */
export class Browser {
  readonly cookies = new Map<string, string>();

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  async get(url: string): Promise<Response> {
    const res = await testFetch(url, { redirect: 'manual', headers: this.cookieHeader() });
    this.remember(res);
    return res;
  }

  async post(url: string, fields: [string, string][]): Promise<Response> {
    const res = await testFetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader() },
      body: new URLSearchParams(fields).toString(),
    });
    this.remember(res);
    return res;
  }

  /** Submits the first form of `html` whose action contains `actionPart`, with extra/override fields. */
  async submit(html: string, actionPart: string, extra: [string, string][] = []): Promise<Response> {
    const form = parseForms(html).find((f) => f.action.includes(actionPart));
    if (!form) throw new Error(`no form posting to ${actionPart}`);
    const names = new Set(extra.map(([k]) => k));
    return this.post(form.action, [...form.fields.filter(([k]) => !names.has(k)), ...extra]);
  }
}

/** Signs the browser in through the real sign-in form, starting from a page that redirected to it. */
export async function signInThroughForm(
  browser: Browser,
  signinLocation: string,
  email: string,
  password: string,
) {
  const page = await browser.get(signinLocation);
  if (page.status !== 200) throw new Error(`sign-in page answered ${page.status}`);
  return browser.submit(await page.text(), '/account/signin', [
    ['email', email],
    ['password', password],
  ]);
}

/**
 * Plays the user agent sent to an authorization URL: signs in through the form when the server asks
 * for it, approves on the consent page, and returns the redirect back to the application.
 */
export async function approveAuthorization(
  browser: Browser,
  url: string,
  user: { email: string; password: string },
): Promise<URL> {
  let res = await browser.get(url);
  if (res.status === 303 && res.headers.get('location')!.includes('/account/signin')) {
    await signInThroughForm(browser, res.headers.get('location')!, user.email, user.password);
    res = await browser.get(url);
  }
  if (res.status !== 200) throw new Error(`the consent page answered ${res.status}`);
  const done = await browser.submit(await res.text(), '/auth/consent', [['decision', 'approve']]);
  if (done.status !== 303) throw new Error(`the approval answered ${done.status}, not 303`);
  return new URL(done.headers.get('location')!);
}

/** A new browser signed in through the sign-in form of the server at `origin`. */
export async function signedInBrowser(origin: string, email: string, password: string): Promise<Browser> {
  const browser = new Browser();
  const res = await signInThroughForm(
    browser,
    `${origin}/account/signin?return_to=%2Faccount`,
    email,
    password,
  );
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}, not 303`);
  return browser;
}

/** openid-client's discovery of the test server (plain OAuth 2.0 metadata, http on loopback allowed). */
export function discoverOverHttp(
  origin: string,
  clientId: string,
  auth: openid.ClientAuth = openid.None(),
): Promise<openid.Configuration> {
  return openid.discovery(new URL(origin), clientId, undefined, auth, {
    algorithm: 'oauth2',
    execute: [openid.allowInsecureRequests],
  });
}
