/**
 * Hostile inputs on every route the app registers (read from Fastify's own route table, so a new
 * route is walked without touching this file), on the raw WebSocket upgrade paths and on the
 * telegram-body host: every method, odd query strings, bodies of every content type and encoding,
 * and every header a client or a proxy can garble, with and without credentials. Whatever comes:
 * never a 5xx, always a response (no reset), within a few seconds, memory that does not keep
 * growing, and nothing stored by a refused request. Deterministic: a seeded generator.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, Agent, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { Browser, parseForms, signInThroughForm } from '../support/browser.ts';
import { testDatabaseUrl } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';
import { registeredRoutes, startTestServer, type TestServer } from '../support/server.ts';
import { engineFree } from '../support/engine.ts';

const SEED = 0x6e616d61;
/**
 * Longest an answer may take before it counts as a hang: well over what a refused request takes
 * when the machine is busy (an ingest refused under a parallel test run took over 5 s), well under
 * the server's own time-outs, which a request that hangs would reach.
 */
const HANG_MS = 15_000;
/**
 * Hostile requests generated for each route (beyond the methods pass). On PostgreSQL the file runs
 * again for what the engine changes (hostile values reaching its driver, nothing stored by a refused
 * request): 150 there. The file is the suite's longest; its second run need not be as long.
 */
const VARIANTS_PER_ROUTE = testDatabaseUrl ? 150 : 400;
/** Requests in flight at once. */
const PARALLEL = 8;

/** mulberry32: a small seeded generator, so that a failure names a run that can be repeated. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  return { next, pick, int: (n: number) => Math.floor(next() * n) };
}

interface Hostile {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** What the request is, for a failure's message. */
  label: string;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: PARALLEL });

/** One request over HTTP/1.1; rejects on a reset or a hang, resolves on any answer. */
function send(port: number, h: Hostile): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: h.method,
        path: h.path,
        headers: h.headers,
        agent,
        // The raw headers as given (a Host of our own, repeated names).
        setHost: !Object.keys(h.headers).some((k) => k.toLowerCase() === 'host'),
      },
      (res) => {
        // A stream that opened is an answer: nothing more to read.
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.destroy();
          req.destroy();
          resolve({ status: res.statusCode!, headers: res.headers, text: '', ms: Date.now() - started });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < 65_536) chunks.push(c);
          size += c.length;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            ms: Date.now() - started,
          }),
        );
        res.on('error', (err) => reject(new Error(`${h.label}: response broke (${err.message})`)));
      },
    );
    req.setTimeout(HANG_MS, () => {
      req.destroy();
      reject(new Error(`${h.label}: no answer within ${HANG_MS} ms`));
    });
    req.on('error', (err) => reject(new Error(`${h.label}: ${err.message}`)));
    if (h.body !== undefined) req.end(h.body);
    else req.end();
  });
}

/** Writes `raw` on a fresh connection, half-closed, and resolves with everything answered until it closes. */
function exchange(port: number, raw: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let response = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${HANG_MS} ms after: ${response.slice(0, 100)}`));
    }, HANG_MS);
    socket.on('data', (d) => (response += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(response);
    });
    // Half-closed after the request: the server answers, then closes.
    socket.on('connect', () => socket.end(raw));
  });
}

// --- the hostile values ---------------------------------------------------------------------

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'FOO'];

/** Path parameters: odd ids of every kind (already encoded for the URL). */
const SEGMENTS = [
  '1',
  '0',
  '-0',
  '-1',
  '1e309',
  '0x10',
  '9223372036854775808',
  '99999999999999999999999',
  '%00',
  '%zz',
  '%C0%80',
  '%ED%A0%80',
  '%E3%81%82',
  'a'.repeat(200),
  '%2F..%2F',
  'f'.repeat(96),
];

const PARAM_NAMES = [
  'limit',
  'cursorToken',
  'nextToken',
  'type',
  'type[]',
  'datetime',
  'date',
  'classifications',
  'types',
  'after',
  'formatMode',
  'test',
  'key',
  'return_to',
  'lang',
  'ticket',
  'id',
  'status',
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'hypocenter',
  'maxInt',
  'areas',
  'minIntensity',
  'newCatch',
  'xml',
  'xmlReport',
  'serial',
  'invitation',
  '__proto__',
  'constructor',
  'a[b][c]',
  'x[]',
];

const QUERY_VALUES = [
  '',
  '%zz',
  '%',
  '%C0%80',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%00',
  '%0A%0D',
  '%1F%7F',
  '%FF%FE',
  '1e309',
  '-1e309',
  '-0',
  '0x10',
  '9223372036854775808',
  '18446744073709551616',
  '-9223372036854775809',
  'NaN',
  '1.5',
  '%E3%81%82%F0%9F%8C%8A',
  'a'.repeat(8000),
  '%41'.repeat(2000),
  '[]',
  '{}',
  'null',
  'true',
  '%2C%2C%2C',
  'telegram.earthquake',
  'VXSE53',
  '2021-02-17T00:00:00~',
];

/** A query string of repeated, nested and hostile parameters. */
function hostileQuery(r: ReturnType<typeof generator>): string {
  const pairs: string[] = [];
  const n = 1 + r.int(5);
  for (let i = 0; i < n; i++) {
    const name = r.pick(PARAM_NAMES);
    const value = r.pick(QUERY_VALUES);
    pairs.push(`${encodeURIComponent(name)}=${value}`);
    // Repeated: a list where one value belongs.
    if (r.next() < 0.3) pairs.push(`${encodeURIComponent(name)}=${r.pick(QUERY_VALUES)}`);
  }
  if (r.next() < 0.1) pairs.push('&&=&=&%3D%3D');
  return pairs.join('&');
}

const deepJson = '['.repeat(10_000) + ']'.repeat(10_000);
const deepObject = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
/** About 100 MB of zeros in about 100 KB (capped by the body limit once inflated). */
const gzipBomb = gzipSync(Buffer.alloc(100 * 1024 * 1024), { level: 9 });
const invalidUtf8 = Buffer.from([
  0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xff, 0x22, 0x7d,
]);

interface BodyVariant {
  type?: string;
  encoding?: string;
  body: Buffer | string;
  /** Content-Length that differs from the body: the rest never comes, or comes as a next request. */
  length?: number;
}

const BODIES: BodyVariant[] = [
  { type: 'application/json', body: deepJson },
  { type: 'application/json', body: deepObject },
  {
    type: 'application/json',
    body: '{"__proto__":{"admin":true,"isAdmin":true},"constructor":{"prototype":{"x":1}}}',
  },
  {
    type: 'application/json',
    body: '{"classifications":["telegram.earthquake"],"__proto__":{"types":["x"]}}',
  },
  { type: 'application/json', body: '{"limit":1e400,"id":-1e400,"n":123456789012345678901234567890}' },
  { type: 'application/json', body: invalidUtf8 },
  { type: 'application/json; charset=utf-16', body: Buffer.from('{"a":1}', 'utf16le') },
  { type: 'application/json', body: '' },
  { type: 'application/json', body: '{', length: 0 },
  { type: 'application/json', body: 'null' },
  { type: 'application/json', body: `"${'x'.repeat(60_000)}"` },
  { type: 'application/x-www-form-urlencoded', body: `name=${'x'.repeat(60_000)}&scope=${'y'.repeat(5000)}` },
  {
    type: 'application/x-www-form-urlencoded',
    body: 'a=%zz&b=%C0%80&c=%ED%A0%80&__proto__=1&constructor=2&a=3',
  },
  { type: 'application/x-www-form-urlencoded', body: invalidUtf8 },
  { type: 'application/x-www-form-urlencoded', body: '&'.repeat(20_000) },
  { type: 'application/x-www-form-urlencoded', body: 'a[b][c][d]=1&x[]=1&x[]=2' },
  {
    type: 'multipart/form-data; boundary=zz',
    body: '--zz\r\nContent-Disposition: form-data; name="a"\r\n\r\n\u0000\r\n--zz',
  },
  { type: 'multipart/form-data', body: 'garbage' },
  { type: 'text/plain', body: '{"classifications":' },
  { type: 'application/xml', body: '<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><x>&b;</x>' },
  { type: 'application/octet-stream', body: Buffer.alloc(70_000, 0xff) },
  { type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
  { type: 'application/json', encoding: 'gzip', body: gzipSync('{"a":1}') },
  { type: 'application/json', encoding: 'deflate', body: deflateSync('{"a":1}') },
  { type: 'application/json', encoding: 'br', body: brotliCompressSync('{"a":1}') },
  { type: 'application/json', encoding: 'gzip', body: gzipBomb },
  { type: 'application/x-www-form-urlencoded', encoding: 'gzip, identity, x-unknown', body: 'a=1' },
  { type: 'application/json', encoding: 'gzip', body: 'not gzip at all' },
  { type: '', body: 'x' },
  { type: ';;;', body: 'x' },
  { type: 'application/json; charset=x-no-such-charset', body: '{}' },
];

const AUTHORIZATIONS = [
  'Basic',
  'Basic ',
  'Basic !!!',
  `Basic ${Buffer.from('no-colon').toString('base64')}`,
  `Basic ${Buffer.from(':').toString('base64')}`,
  `Basic ${Buffer.from('AKe.x:y').toString('base64')}`,
  `Basic ${Buffer.from([0xff, 0xfe, 0x3a]).toString('base64')}`,
  `Bearer ${'A'.repeat(10_240)}`,
  'Bearer',
  'Bearer ATn.',
  'Bearer ATn.' + '%00',
  'bearer   ATn.x  y',
  'DPoP garbage',
  'DPoP ATn.x',
  'Digest username="x"',
  'Negotiate YII=',
  '\u00e9\u00ff',
  ',,,,',
];

function hostileHeaders(r: ReturnType<typeof generator>, port: number): Record<string, string> {
  const h: Record<string, string> = {};
  const pickers: (() => void)[] = [
    () => (h.authorization = r.pick(AUTHORIZATIONS)),
    () => {
      h.authorization = r.pick(['DPoP ATn.x', 'DPoP ' + 'x'.repeat(3000)]);
      h.dpop = r.pick(['garbage', 'a.b.c', 'e30.e30.', '.'.repeat(500), 'eyJhbGciOiJub25lIn0.e30.']);
    },
    () =>
      (h.cookie = r.pick([
        'namazu_session=' + 'x'.repeat(4000),
        '=;=;=',
        'a=%zz; b=%C0%80; namazu_session=%ED%A0%80',
        ';'.repeat(500),
        '\u00ff\u00fe=1',
        'namazu_session="unterminated',
      ])),
    () =>
      (h.host = r.pick([
        '',
        '[',
        '[::1',
        'a:b:c',
        'x'.repeat(1000),
        `127.0.0.1:${port}:${port}`,
        '%zz',
        'evil.example',
        '127.0.0.1:99999999',
        '\u00e9.example',
      ])),
    () =>
      (h.accept = r.pick([
        '*/*;q=abc',
        'text/event-stream;q=1e309',
        ';;;',
        'application/json;q=-1, */*;q=0',
        'x/y/z',
        '*/*;'.repeat(1000),
      ])),
    () =>
      (h['accept-encoding'] = r.pick([
        'gzip;q=1e400',
        'gzip;q=NaN, *;q=0',
        '*;q=0',
        'identity;q=0, *;q=0',
        ',,,;;;',
        'br, zstd, x-foo;q=0.5',
        'gzip;q=' + '9'.repeat(500),
      ])),
    () => (h['accept-language'] = r.pick(['*;q=x', 'ja-JP-' + 'x'.repeat(2000), ',,,', 'en;q=-1', 'zz'])),
    () => {
      h['x-forwarded-for'] = r.pick([
        '',
        'garbage',
        '1.2.3.4, , ,',
        '::ffff:1.2.3.4, [::1]',
        '999.999.999.999',
        'x'.repeat(4000),
      ]);
      h['x-forwarded-proto'] = r.pick(['', 'gopher', 'https, http', 'h\u00ff']);
      h['x-forwarded-host'] = r.pick(['', '[', 'a:b:c', 'evil.example']);
    },
    () =>
      (h.range = r.pick([
        'bytes=0-0',
        'bytes=-1',
        'bytes=99999999999999999999-',
        'bytes=5-1',
        'items=0-1',
        'bytes=0-1,2-3,' + '4-5,'.repeat(500),
      ])),
    () =>
      (h['if-none-match'] = r.pick([
        '*',
        '"',
        'W/',
        ',,,',
        '"x", W/"y", ' + '"z",'.repeat(1000),
        'W/"' + 'a'.repeat(5000) + '"',
      ])),
    () => (h['if-modified-since'] = r.pick(['garbage', 'Thu, 01 Jan 1970 00:00:00 GMT', '+275760-09-13'])),
    () =>
      (h['last-event-id'] = r.pick(['', 'garbage', 'f'.repeat(96), 'F'.repeat(96), '%00', 'x'.repeat(5000)])),
    () => (h.origin = r.pick(['null', 'https://evil.example', 'garbage', ''])),
    () => (h['access-control-request-method'] = r.pick(['DELETE', 'FOO', ''])),
    () => (h.expect = r.pick(['100-continue', 'garbage'])),
  ];
  const n = 1 + r.int(4);
  for (let i = 0; i < n; i++) r.pick(pickers)();
  return h;
}

describe('hostile inputs on every route', () => {
  let server: TestServer;
  let port: number;
  let apiKeyAuth: string;
  let adminKeyAuth: string;
  let cookie: string;
  let csrf: string;
  let telegramId: string;
  let adminUser: { account: { email: string }; password: string };
  let snapshot: () => Promise<string>;
  const failures: string[] = [];

  /** Sends `h`, recording a 5xx, a reset or a hang as a failure of the run. */
  async function probe(h: Hostile): Promise<Answer | undefined> {
    try {
      const a = await send(port, h);
      if (a.status >= 500) failures.push(`${h.label} → ${a.status} ${a.text.slice(0, 200)}`);
      else if (a.ms > HANG_MS) failures.push(`${h.label} → ${a.ms} ms`);
      return a;
    } catch (err) {
      failures.push((err as Error).message);
      return undefined;
    }
  }

  async function all(requests: Hostile[]): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < requests.length) await probe(requests[next++]!);
      }),
    );
  }

  before(async () => {
    server = await startTestServer({
      config: {
        publicClassifications: ['telegram.earthquake'],
        publicConnectsPerMinute: 1_000_000,
        publicMaxPerAddress: 1_000_000,
      },
    });
    port = server.port;
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'telegram.weather', 'eew.forecast'],
    });
    const key = await server.createApiKey(account.id, [
      'telegram.list',
      'telegram.data',
      'telegram.get.earthquake',
      'contract.list',
      'gd.earthquake',
      'gd.eew',
      'parameter.earthquake',
      'parameter.tsunami',
      'socket.start',
      'socket.list',
      'socket.close',
      'webhook.list',
      'webhook.manage',
      'eew.get.forecast',
    ]);
    apiKeyAuth = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    const admin = await server.createAccount({ admin: true, contracts: ['telegram.earthquake'] });
    const adminKey = await server.createApiKey(admin.account.id, ['admin.telegram.ingest']);
    adminKeyAuth = `Basic ${Buffer.from(`${adminKey}:`).toString('base64')}`;
    // A stored telegram: its body, its console pages and the lists have something to show.
    const xml = readFileSync(fixture('official', '32-35_06_06_100915_VXSE53.xml'));
    const ingested = await fetch(`${server.url}/admin/v1/telegrams`, {
      method: 'POST',
      headers: { authorization: adminKeyAuth, 'content-type': 'application/xml' },
      body: xml,
    });
    assert.equal(ingested.status, 200, await ingested.clone().text());
    const list = (await (
      await fetch(`${server.url}/v2/telegram`, { headers: { authorization: apiKeyAuth } })
    ).json()) as { items: { id: string }[] };
    telegramId = list.items[0]!.id;
    adminUser = admin;
    snapshot = async () =>
      JSON.stringify(
        await server.ctx.db.query(
          `SELECT (SELECT count(*)::int FROM telegrams) AS telegrams,
                  (SELECT count(*)::int FROM accounts) AS accounts,
                  (SELECT count(*)::int FROM api_keys) AS keys,
                  (SELECT count(*)::int FROM api_keys WHERE revoked_at IS NOT NULL) AS revoked_keys,
                  (SELECT count(*)::int FROM contracts) AS contracts,
                  (SELECT count(*)::int FROM oauth_clients) AS clients,
                  (SELECT count(*)::int FROM oauth_tokens) AS tokens,
                  (SELECT count(*)::int FROM invitations) AS invitations,
                  (SELECT count(*)::int FROM socket_sessions) AS sessions,
                  (SELECT count(*)::int FROM webhook_subscriptions) AS webhooks,
                  (SELECT count(*)::int FROM gd_earthquake_events) AS events`,
        ),
      );
  });
  // A signed-in console session (the admin's: the administration pages too) and its CSRF token,
  // new for each test: a hostile request with the token may legitimately sign it out.
  beforeEach(async () => {
    const browser = new Browser();
    await signInThroughForm(
      browser,
      `${server.url}/account/signin?return_to=%2Faccount`,
      adminUser.account.email,
      adminUser.password,
    );
    cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const page = await (await browser.get(`${server.url}/account/keys`)).text();
    csrf = parseForms(page)[0]!.fields.find(([k]) => k === 'csrf')![1];
  });
  after(async () => {
    agent.destroy();
    await server.close();
  });

  /** Who the request is: nobody, an API key, the admin's key, the console session with its token. */
  function credentials(r: ReturnType<typeof generator>): { headers: Record<string, string>; csrf?: string } {
    switch (r.int(4)) {
      case 0:
        return { headers: {} };
      case 1:
        return { headers: { authorization: apiKeyAuth } };
      case 2:
        return { headers: { authorization: adminKeyAuth } };
      default:
        return { headers: { cookie }, csrf };
    }
  }

  /**
   * A path of the route with odd parameters. A request that may act (`safe` false) names nothing
   * that exists: with the admin's session and token, `/console/admin/accounts/1/disable` is a
   * valid request whatever its body holds.
   */
  function concrete(template: string, r: ReturnType<typeof generator>, safe: boolean): string {
    const segments = safe ? SEGMENTS : SEGMENTS.filter((s) => s !== '1');
    return template
      .replace(/\*$/, 'x')
      .replace(/:[A-Za-z]+/g, (name) =>
        name === ':id' && template === '/v1/:id' && r.next() < 0.3 ? telegramId : r.pick(segments),
      );
  }

  // The WebSocket paths are routes too (426 to a plain request), walked with the rest.
  const walkable = () => registeredRoutes(server).filter((r) => r.path !== '*');

  /**
   * Console forms whose fields are all optional: with the session's token, any body is a valid
   * request that acts (an invitation for anyone, a sign-out). They get hostile bodies without it.
   */
  const EVERY_FIELD_OPTIONAL = new Set(['/console/admin/invite', '/account/signout']);

  /** Field names the routes read, in JSON bodies and forms. */
  const FIELDS = [
    'classifications',
    'types',
    'test',
    'formatMode',
    'formats',
    'appName',
    'areas',
    'minIntensity',
    'after',
    'url',
    'format',
    'lang',
    'token',
    'visibility',
    'localOnly',
    'grant_type',
    'code',
    'redirect_uri',
    'client_id',
    'client_secret',
    'code_verifier',
    'refresh_token',
    'scope',
    'token_type_hint',
    'name',
    'redirectUris',
    'type',
    'grant',
    'plan',
    'action',
    'current',
    'next',
    'email',
    'password',
    'invitation',
    'decision',
    'limit',
    'asReal',
    'magnitude',
    'depth',
    'epicenter',
    'intensity',
    'xml',
    'time',
    '__proto__',
    'constructor',
  ];
  const JSON_VALUES: unknown[] = [
    null,
    true,
    -0,
    1e308,
    -1,
    2 ** 63,
    '',
    '\u0000',
    '\ud800',
    'x'.repeat(3000),
    '%zz',
    [],
    [null],
    ['telegram.earthquake'],
    Array(200).fill('telegram.earthquake'),
    {},
    { __proto__: null, toString: 1 },
    'telegram.earthquake',
    'VXSE53',
    'json',
    'https://a.example/x',
    'authorization_code',
    'refresh_token',
    'client_credentials',
  ];

  it('near-valid bodies with credentials on every route that takes one: field by field, hostile values', async () => {
    const before = await snapshot();
    const r = generator(SEED + 2);
    const requests: Hostile[] = [];
    for (const { path: template, methods } of walkable()) {
      for (const method of methods.filter((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m))) {
        for (let i = 0; i < 40; i++) {
          const path = concrete(template, r, false);
          const who = r.pick<Record<string, string>>([
            { authorization: apiKeyAuth },
            { authorization: adminKeyAuth },
            { cookie },
            { authorization: `Basic ${Buffer.from('CId.x:CSt.y').toString('base64')}` },
          ]);
          const fields = Array.from(
            { length: 1 + r.int(5) },
            () => [r.pick(FIELDS), r.pick(JSON_VALUES)] as const,
          );
          let body: string;
          let type: string;
          if (r.next() < 0.5) {
            type = 'application/json';
            body = `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;
          } else {
            type = 'application/x-www-form-urlencoded';
            const form = new URLSearchParams();
            // The console's token: the values reach the handler.
            if ('cookie' in who && !EVERY_FIELD_OPTIONAL.has(template)) form.append('csrf', csrf);
            for (const [k, v] of fields)
              form.append(k, typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
            body = form.toString();
          }
          requests.push({
            method,
            path,
            headers: { ...who, 'content-type': type },
            body,
            label: `${method} ${path} ${JSON.stringify(who).slice(0, 40)} ${body.slice(0, 200)}`,
          });
        }
      }
    }
    await all(requests);
    assert.deepEqual(failures, []);
    assert.equal(await snapshot(), before);
  });

  it(
    'raw requests no HTTP client sends: control bytes, invalid UTF-8, CONNECT, short bodies, hostile upgrades',
    engineFree,
    async () => {
      const before = await snapshot();
      const upgrade = (path: string, extra = '') =>
        `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${extra}\r\n`;
      const raws: (string | Buffer)[] = [
        'GET /v2/telegram?limit=\u0001\u0002 HTTP/1.1\r\nHost: x\r\n\r\n',
        Buffer.concat([
          Buffer.from('GET /v2/telegram?type='),
          Buffer.from([0xc0, 0x80, 0xff]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
        ]),
        Buffer.concat([
          Buffer.from('GET /v1/'),
          Buffer.from([0xed, 0xa0, 0x80]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
        ]),
        'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n',
        'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',
        'GET /healthz HTTP/1.1\r\n\r\n',
        'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        'POST /v2/socket HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
        'POST /v2/socket HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n',
        'POST /v2/socket HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
        'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n',
        'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
        'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
        'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET http://evil.example/v2/telegram HTTP/1.1\r\nHost: x\r\n\r\n',
        upgrade('/v2/websocket?ticket=%zz'),
        upgrade('/v2/websocket?ticket=' + 'a'.repeat(5000)),
        upgrade('/v2/websocket?ticket=%00&ticket=x'),
        upgrade('/v2/public/websocket?classifications=%ED%A0%80&formatMode=1e309'),
        upgrade(
          '/v2/public/websocket?classifications=telegram.earthquake',
          'Sec-WebSocket-Protocol: ' + 'x,'.repeat(2000) + '\r\n',
        ),
        upgrade(
          '/v2/websocket',
          'Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=99\r\n',
        ),
        upgrade('/v2/telegram'),
        upgrade('/account/signin'),
        'GET /v2/websocket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 99\r\n\r\n',
        'GET /v2/websocket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n',
      ];
      for (const raw of raws) {
        const where = JSON.stringify(raw.toString('latin1').slice(0, 120));
        const answer = await exchange(port, raw);
        // Every request gets an answer (a WebSocket handshake may be refused, or accepted then closed).
        assert.match(answer, /^HTTP\/1\.1 [1-4]\d\d /, `${where}: ${answer.slice(0, 200)}`);
      }
      assert.equal(await snapshot(), before);
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    },
  );

  it(
    'CONNECT is answered 405 in the envelope (Node alone closes the connection without a word)',
    engineFree,
    async () => {
      const answer = await exchange(port, 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n');
      assert.match(answer, /^HTTP\/1\.1 405 /, answer.slice(0, 200));
      assert.match(answer, /\r\nconnection: close\r\n/i);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: unknown };
      assert.deepEqual(body.error, { message: 'Method not allowed.', code: 405 });
    },
  );

  it(
    'a WebSocket path asked without a WebSocket upgrade (none, or h2c) is a 426 envelope saying so',
    engineFree,
    async () => {
      for (const path of ['/v2/websocket?ticket=x', '/v2/public/websocket']) {
        for (const upgrade of ['', 'Connection: Upgrade\r\nUpgrade: h2c\r\n']) {
          const answer = await exchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`);
          const where = `${path} ${JSON.stringify(upgrade)}: ${answer.slice(0, 300)}`;
          assert.match(answer, /^HTTP\/1\.1 426 /, where);
          assert.match(answer, /\r\nupgrade: websocket\r\n/i, where);
          const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: unknown };
          assert.deepEqual(
            body.error,
            { message: 'This is a WebSocket endpoint: connect with a WebSocket client.', code: 426 },
            where,
          );
        }
      }
    },
  );

  it('a query string of 100 KB is a 431 envelope', engineFree, async () => {
    const answer = await exchange(
      port,
      `GET /v2/telegram?limit=${'9'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    assert.match(answer, /^HTTP\/1\.1 431 /, answer.slice(0, 200));
  });

  it('a HEAD refused for its headers (431) is answered without a body', engineFree, async () => {
    const answer = await exchange(
      port,
      `HEAD /v2/telegram HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    assert.match(answer, /^HTTP\/1\.1 431 /);
    assert.equal(answer.slice(answer.indexOf('\r\n\r\n') + 4), '', 'no body after the headers');
  });

  it('HEAD /console/live/events answers (its headers, no stream) at once', engineFree, async () => {
    const a = await send(port, {
      method: 'HEAD',
      path: '/console/live/events',
      headers: { cookie },
      label: 'HEAD /console/live/events',
    });
    // The headers a GET would have, and no stream held open.
    assert.equal(a.status, 200);
    assert.match(String(a.headers['content-type']), /^text\/event-stream/);
  });

  it('every method on every route, with and without credentials: a 4xx or a success, never a 5xx', async () => {
    const before = await snapshot();
    const requests: Hostile[] = [];
    for (const { path: template, methods } of walkable()) {
      for (const method of METHODS) {
        // DELETE and POST change things: ids that name nothing.
        const path = template.replace(/\*$/, 'x').replace(/:[A-Za-z]+/g, '999999');
        for (const auth of [{}, { authorization: apiKeyAuth }, { cookie }] as Record<string, string>[]) {
          requests.push({
            method,
            path,
            headers: { ...auth },
            label: `${method} ${path} ${Object.keys(auth).join()} (routed: ${methods.join(',')})`,
          });
        }
      }
    }
    await all(requests);
    assert.deepEqual(failures, []);
    assert.equal(await snapshot(), before);
  });

  it(`${VARIANTS_PER_ROUTE} generated hostile requests per route (seed ${SEED}): never a 5xx, a reset or a hang; nothing stored; memory bounded`, async () => {
    const before = await snapshot();
    const r = generator(SEED + 1);
    const requests: Hostile[] = [];
    for (const { path: template, methods } of walkable()) {
      for (let i = 0; i < VARIANTS_PER_ROUTE; i++) {
        const method = r.next() < 0.7 && methods.length > 0 ? r.pick(methods) : r.pick(METHODS);
        const who = credentials(r);
        let path = concrete(template, r, ['GET', 'HEAD', 'OPTIONS'].includes(method));
        if (r.next() < 0.6) path += `?${hostileQuery(r)}`;
        const headers: Record<string, string> = { ...who.headers };
        if (r.next() < 0.6) Object.assign(headers, hostileHeaders(r, port));
        let body: Buffer | string | undefined;
        if (method !== 'GET' && method !== 'HEAD' && r.next() < 0.8) {
          const v = r.pick(BODIES);
          body = v.body;
          // The console's token beside a hostile form: the request reaches the handler.
          if (
            who.csrf &&
            !EVERY_FIELD_OPTIONAL.has(template) &&
            v.type === 'application/x-www-form-urlencoded' &&
            typeof body === 'string'
          )
            body = `csrf=${who.csrf}&${body}`;
          if (v.type !== undefined) headers['content-type'] = v.type;
          if (v.encoding) headers['content-encoding'] = v.encoding;
          if (v.length !== undefined) headers['content-length'] = String(v.length);
        }
        const label = `#${i} ${method} ${path.slice(0, 160)} ${JSON.stringify(headers).slice(0, 300)} body=${String(body ?? '').slice(0, 60)}`;
        requests.push({ method, path, headers, body, label });
      }
    }
    // Warm up (caches, code paths), then measure the rest.
    const half = Math.floor(requests.length / 2);
    await all(requests.slice(0, half));
    global.gc?.();
    const rssAfterHalf = process.memoryUsage().rss;
    await all(requests.slice(half));
    global.gc?.();
    const growth = process.memoryUsage().rss - rssAfterHalf;
    assert.deepEqual(failures, []);
    // The second half is the same kind of traffic as the first: memory that keeps growing shows here.
    assert.ok(growth < 200 * 1024 * 1024, `RSS grew ${Math.round(growth / 1048576)} MB over the second half`);
    assert.equal(await snapshot(), before);
    // The server still serves.
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });
});
