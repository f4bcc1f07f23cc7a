/**
 * An adversarial pass over every route the server registers (read from Fastify's own route table):
 * wrong methods, odd path parameters, bad bodies and content types, and on the data API every query
 * parameter with values of the wrong type, out of range, repeated, over-long, badly percent-encoded
 * or tampered (cursors). Whatever comes: never a 5xx, never a hang, the documented error shape
 * (service.md "Errors", behaviour.md §3) and nothing stored by a refused request. For valid input,
 * the paging rules service.md states: newest first, `limit` default 20 and maximum 100, `nextToken`
 * only while older items exist. Deterministic: fixed value tables, and fast-check with a fixed seed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import FindMyWay from 'find-my-way';
import { socketStartMessages, telegramListV2Messages } from '../../src/api/schemas.ts';
import { errorCatalogue } from '../../src/errors.ts';
import { NOT_JSON_MESSAGE } from '../../src/http/json-body.ts';
import { registeredRoutes, startTestServer, type TestServer } from '../support/server.ts';
import { fixture } from '../support/fixtures.ts';
import { assertResponseSchema } from '../support/schemas.ts';
import { CHAIN_2008, ingestNamed, REAL_2021 } from './gd-support.ts';
import { engineFree } from '../support/engine.ts';

/** Longest a request may take before it counts as a hang. */
const HANG_MS = 5000;
const SEED = 20260301;

/** Every message a data API error may carry (errors.ts, schemas.ts: the documented ones). */
const FIXED_MESSAGES = new Set<string>([
  ...Object.values(errorCatalogue)
    .map((e) => e.message)
    .filter((m) => !m.includes('%s')),
  ...Object.values(socketStartMessages),
  ...Object.values(telegramListV2Messages),
  NOT_JSON_MESSAGE,
]);
const PATTERNED_MESSAGES = [
  /^Unexpected data of search query `[^`]+`\.$/,
  /^Insufficient scope for `[a-z.]+`\.$/,
  /^Telegram rejected: .+\.$/,
];

/** The data API's JSON paths (the telegram bodies under /v1/ answer errors as plain text). */
const isDataApi = (path: string) => /^\/(v2|telegram|admin)\//.test(path);

interface Answer {
  status: number;
  type: string;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked field by field
  json: any;
}

/** The request's query string from pairs whose values are sent as they are when already encoded. */
const queryOf = (pairs: readonly (readonly [string, string])[]) =>
  pairs
    .map(
      ([n, v]) =>
        `${encodeURIComponent(n)}=${/%[0-9A-Fa-f]{2}|%$|%[^0-9A-Fa-f]/.test(v) ? v : encodeURIComponent(v)}`,
    )
    .join('&');

describe('fuzz: every registered route with bad input', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  let adminAuth: Record<string, string>;
  let snapshot: () => Promise<string>;
  const failures: string[] = [];

  async function send(method: string, path: string, init: RequestInit = {}): Promise<Answer> {
    const started = Date.now();
    let res: Response;
    try {
      res = await fetch(server.url + path, {
        method,
        redirect: 'manual',
        ...init,
        signal: AbortSignal.timeout(HANG_MS),
      });
    } catch (err) {
      throw new Error(`${method} ${path}: no answer (${(err as Error).message})`);
    }
    const type = res.headers.get('content-type') ?? '';
    // A stream that opened is an answer: nothing more to read.
    if (type.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, type, text: '', json: undefined };
    }
    const text = await res.text();
    assert.ok(Date.now() - started < HANG_MS, `${method} ${path}: ${Date.now() - started} ms`);
    let json: unknown;
    if (type.startsWith('application/json') && text !== '') json = JSON.parse(text);
    if (res.status >= 500) failures.push(`${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
    return { status: res.status, type, text, json };
  }

  /** A data API error in the envelope, with a documented message. */
  function assertEnvelopeError(a: Answer, where: string): void {
    assert.match(a.type, /^application\/json/, `${where}: ${a.status} ${a.type}`);
    assert.equal(a.json.status, 'error', where);
    assert.match(a.json.responseId, /^[0-9a-f]{16}$/, where);
    assert.match(a.json.responseTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, where);
    assert.equal(a.json.error.code, a.status, where);
    const message: string = a.json.error.message;
    assert.ok(
      FIXED_MESSAGES.has(message) || PATTERNED_MESSAGES.some((p) => p.test(message)),
      `${where}: undocumented message ${JSON.stringify(message)}`,
    );
  }

  before(async () => {
    server = await startTestServer();
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'telegram.weather', 'eew.forecast', 'eew.warning'],
    });
    const key = await server.createApiKey(account.id, [
      'telegram.list',
      'telegram.data',
      'telegram.get.earthquake',
      'telegram.get.weather',
      'contract.list',
      'gd.earthquake',
      'gd.eew',
      'parameter.earthquake',
      'parameter.tsunami',
      'socket.start',
      'socket.list',
      'socket.close',
      'webhook.list',
      'eew.get.forecast',
    ]);
    auth = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
    const admin = await server.createAccount({ admin: true, contracts: ['telegram.earthquake'] });
    const adminKey = await server.createApiKey(admin.account.id, ['admin.telegram.ingest']);
    adminAuth = { authorization: `Basic ${Buffer.from(`${adminKey}:`).toString('base64')}` };
    await ingestNamed(server, [
      ...REAL_2021.slice(0, 7),
      ...CHAIN_2008.slice(0, 2),
      '77_01_32_240613_VXSE45.xml',
      '77_01_33_240613_VXSE45.xml',
      '37_04_01_110311_VXSE43.xml',
      '77_01_01_110311_VXSE45.xml',
      '37_04_02_110311_VXSE43.xml',
      '77_01_02_110311_VXSE45.xml',
    ]);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v2/socket`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ classifications: ['telegram.earthquake'], appName: `fuzz ${i}` }),
      });
      assert.equal(res.status, 200, await res.text());
    }
    snapshot = async () =>
      JSON.stringify(
        await server.ctx.db.query(
          `SELECT (SELECT count(*)::int FROM telegrams) AS telegrams,
                  (SELECT max(serial) FROM telegrams) AS serial,
                  (SELECT count(*)::int FROM gd_earthquake_events) AS events,
                  (SELECT count(*)::int FROM gd_eew_reports) AS eew,
                  (SELECT count(*)::int FROM accounts) AS accounts,
                  (SELECT count(*)::int FROM api_keys) AS keys,
                  (SELECT count(*)::int FROM contracts) AS contracts,
                  (SELECT string_agg(id || status, ',' ORDER BY id) FROM socket_sessions) AS sessions,
                  (SELECT count(*)::int FROM webhook_subscriptions) AS webhooks`,
        ),
      );
  });
  after(() => server.close());

  it('Fastify lists the data API routes the test walks', engineFree, () => {
    const paths = registeredRoutes(server).map((r) => r.path);
    for (const p of [
      '/v2/telegram',
      '/telegram/v1/list',
      '/v1/:id',
      '/v2/contract',
      '/v2/gd/earthquake',
      '/v2/gd/earthquake/:eventId',
      '/v2/gd/eew',
      '/v2/gd/eew/:eventId',
      '/v2/parameter/earthquake/station',
      '/v2/parameter/tsunami/station',
      '/v2/socket',
      '/v2/socket/:id',
    ])
      assert.ok(paths.includes(p), `${p} in ${paths.join(' ')}`);
  });

  it(
    'every route, every method, with and without credentials, with a malformed body: no 5xx; 404/405 as documented',
    engineFree,
    async () => {
      const before = await snapshot();
      const routes = registeredRoutes(server).filter((r) => !r.path.includes('*'));
      // Which route answers a concrete path and method (`/account/clients/new` is `/account/clients/:id`).
      const router = FindMyWay();
      for (const r of routes) for (const m of r.methods) router.on(m as 'GET', r.path, () => {});
      for (const { path: template, methods } of routes) {
        for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
          // A DELETE takes no body and reads none (a client's empty JSON is no error): it names an id
          // that does not exist, so that it changes nothing whatever it carries.
          const path = template.replace(/:[A-Za-z]+/g, method === 'DELETE' ? '999999' : '1');
          // Credentials matter on the data API; elsewhere one pass is enough.
          for (const withKey of isDataApi(path) || path.startsWith('/v1/') ? [false, true] : [true]) {
            const body = method === 'GET' || method === 'HEAD' ? undefined : '{"classifications":';
            const headers = {
              ...(withKey ? auth : {}),
              ...(body ? { 'content-type': 'application/json' } : {}),
            };
            const a = await send(method, path, { headers, body });
            if (methods.includes(method) || router.find(method as 'GET', path)) continue;
            // A known path with another method: 405, whatever the body holds (behaviour.md §3). The
            // API reference's prefix route (`/reference/`) is not in the method table: 404 there.
            const where = `${method} ${path} (${methods.join(',')}): ${a.text.slice(0, 120)}`;
            if (path === '/reference/') assert.ok([404, 405].includes(a.status), where);
            else assert.equal(a.status, 405, where);
            if (method === 'HEAD') continue;
            if (isDataApi(path)) assertEnvelopeError(a, `${method} ${path}`);
            if (path.startsWith('/v1/')) assert.equal(a.text, 'Method not allowed.', `${method} ${path}`);
          }
        }
      }
      for (const path of [
        '/v2/nothing',
        '/v2/telegram/x',
        '/telegram/v1/list/x',
        '/v2/gd/earthquake/1/x',
        '/v1/a/b',
      ]) {
        for (const method of ['GET', 'HEAD', 'PATCH']) {
          const body = method === 'PATCH' ? '{' : undefined;
          const a = await send(method, path, {
            headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
            body,
          });
          assert.equal(a.status, 404, `${method} ${path}: ${a.text.slice(0, 120)}`);
          if (method === 'HEAD') continue;
          if (path.startsWith('/v1/')) assert.equal(a.text, 'Not found.', `${method} ${path}`);
          else assertEnvelopeError(a, `${method} ${path}`);
        }
      }
      assert.deepEqual(failures, []);
      assert.equal(await snapshot(), before);
    },
  );

  const ODD_SEGMENTS = [
    '0',
    '-1',
    '1e3',
    '99999999999999999999',
    'abc',
    '%00',
    '%FF',
    '%C0%AF',
    '%E3%81',
    '%E3%81%82',
    '%ZZ',
    '...',
    'a%2Fb',
    '%20',
    '%3Cscript%3E',
    'x'.repeat(250),
    'f'.repeat(96),
    'F'.repeat(96),
  ];

  it(
    'path parameters with odd characters: the documented 404 (or 401 without credentials)',
    engineFree,
    async () => {
      const before = await snapshot();
      for (const [method, template] of [
        ['GET', '/v2/gd/earthquake/:x'],
        ['GET', '/v2/gd/eew/:x'],
        ['GET', '/v1/:x'],
        ['DELETE', '/v2/socket/:x'],
      ] as const) {
        for (const segment of ODD_SEGMENTS) {
          const path = template.replace(':x', segment);
          for (const withKey of [true, false]) {
            const a = await send(method, path, { headers: withKey ? auth : {} });
            assert.ok(
              [401, 404].includes(a.status),
              `${method} ${path} → ${a.status} ${a.text.slice(0, 100)}`,
            );
            if (withKey) assert.equal(a.status, 404, `${method} ${path}`);
            if (path.startsWith('/v1/')) assert.match(a.type, /^text\/plain/, `${method} ${path}`);
            else assertEnvelopeError(a, `${method} ${path}`);
          }
        }
      }
      assert.deepEqual(failures, []);
      assert.equal(await snapshot(), before);
    },
  );

  /** Tokens of every list, direction and position shape, and strings that only look like tokens. */
  const TOKENS = [
    ...['v2t', 'v1t', 'gdeq', 'gdeew', 'socket', 'x', ''].flatMap((list) =>
      ['o', 'n', 'x'].flatMap((dir) =>
        ['1', '-1', '9'.repeat(16), ''].map((pos) =>
          Buffer.from(`${list}.${dir}.${pos}`).toString('base64url'),
        ),
      ),
    ),
    Buffer.from('v2t.o.1').toString('base64'),
    `${Buffer.from('v2t.o.1').toString('base64url')}%3D%3D`,
    Buffer.from('v2t.o.1\0').toString('base64url'),
    Buffer.from('v2t.o.1', 'utf16le').toString('base64url'),
    'djJ0Lm8uMQ'.repeat(11),
    'djJ0Lm8u!Q',
  ];

  /** Bad values of every type, for every parameter, as they appear in the URL. */
  const GENERIC = [
    '',
    ' ',
    '-1',
    '0',
    '010',
    '101',
    '1e3',
    '1.5',
    '0x10',
    'NaN',
    'Infinity',
    '9'.repeat(40),
    'true',
    'null',
    '[]',
    '%00',
    '%FF',
    '%C0%AF',
    '%E3%81',
    '%ED%A0%80',
    '%',
    '%Z',
    '%E3%81%82',
    'x'.repeat(3000),
    '~',
    'bogus',
  ];
  const DATETIMES = [
    '~~',
    '2021-02-17T00:00:00',
    '2021-02-30T00:00:00~',
    '2021-02-17T24:00:00~',
    '2021-02-17T00:00:00~2021-02-17T00:00:00',
    '2021-02-18T00:00:00~2021-02-17T00:00:00',
    '0000-01-01T00:00:00~',
    '~0001-01-01T00:00:00',
    '0001-01-01T00:00:00~',
    '9999-12-31T23:59:59-09:00~',
    '~9999-12-31T23:59:59-14:00',
    '2021-02-17T00:00:00+99:99~',
    '2021-02-17 00:00:00~',
  ];
  const TYPES = [
    'VXSE5',
    'vxse53',
    'VXSE51,VXSE52,VXSE53,VXSE61,VXSE62',
    'VXSE51,VXSE52,VXSE53,VXSE61,VXSE62,VXSE60',
    'VXSE51,',
    ',',
    'VXSE5%',
    'VXSE5_',
  ];
  /** Values of one kind, for the parameters that take that kind (besides GENERIC). */
  const SPECIFIC: Record<string, string[]> = {
    datetime: DATETIMES,
    date: ['2021-02-17', '2021-02-17T25:00', '0000-01-01', '9999-12-31', '2021-02-29', '2021-2-17'],
    maxInt: ['5+', '5 ', '5%2B', '6-', '8', '5', '7+'],
    hypocenter: ['289', '0289', '28'],
    type: TYPES,
    'type[]': TYPES,
    limit: ['00', '0100', '100', '00100'],
    newCatch: ['00', '999999999999999', '9999999999999999'],
    id: ['1', '01', '9999999999999999'],
    test: ['no', 'including', 'only', 'false'],
    formatMode: ['raw', 'json', 'xml', 'RAW'],
    status: ['waiting', 'open', 'closed', 'all'],
  };
  /** Parameters that carry cursors: every token shape too. */
  const CURSORS = new Set(['cursorToken', 'nextToken']);
  const valuesOf = (name: string) => [
    ...GENERIC,
    ...(SPECIFIC[name] ?? []),
    ...(CURSORS.has(name) ? TOKENS : []),
  ];
  const VALUES = [...new Set([...GENERIC, ...Object.values(SPECIFIC).flat()])];

  const LISTS: Record<string, string[]> = {
    '/v2/telegram': ['type', 'type[]', 'xmlReport', 'test', 'formatMode', 'datetime', 'cursorToken', 'limit'],
    '/telegram/v1/list': ['type', 'type[]', 'xml', 'test', 'newCatch', 'nextToken', 'limit'],
    '/v2/gd/earthquake': ['hypocenter', 'maxInt', 'date', 'limit', 'cursorToken'],
    '/v2/gd/eew': ['datetime', 'limit', 'cursorToken'],
    '/v2/socket': ['id', 'status', 'cursorToken', 'limit'],
    // Routes without parameters ignore what they are sent (the station lists are large: a few values).
    '/v2/contract': ['limit'],
    '/v2/parameter/earthquake/station': ['limit'],
    '/v2/parameter/tsunami/station': ['limit'],
    '/v2/gd/earthquake/20210217230627': ['limit'],
  };

  /** A list's answer to a query: 200 in its documented shape, or a 400 naming a parameter sent. */
  function assertListAnswer(path: string, pairs: readonly (readonly [string, string])[], a: Answer) {
    const where = `GET ${path}?${queryOf(pairs).slice(0, 200)}`;
    assert.ok(a.status === 200 || a.status === 400, `${where} → ${a.status} ${a.text.slice(0, 150)}`);
    if (a.status === 200) {
      assertResponseSchema(server, 'GET', path, 200, a.json);
      return;
    }
    assertEnvelopeError(a, where);
    const message: string = a.json.error.message;
    const named = /^Unexpected data of search query `([^`]+)`\.$/.exec(message)?.[1];
    const sent = new Set(pairs.map(([n]) => n));
    if (named !== undefined) assert.ok(sent.has(named), `${where}: names ${named}`);
    else if (message === telegramListV2Messages.formatMode) assert.ok(sent.has('formatMode'), where);
    else assert.fail(`${where}: ${message}`);
  }

  it('every query parameter of every list with every bad value, alone and repeated', engineFree, async () => {
    const before = await snapshot();
    for (const [path, names] of Object.entries(LISTS)) {
      for (const name of names) {
        const values = path.startsWith('/v2/parameter/') ? GENERIC.slice(0, 4) : valuesOf(name);
        // Repeated: a list where one value belongs (the second may be good or bad).
        const repeated = ['1', 'raw', VALUES[0]!, values.at(-1)!].map(
          (v) =>
            [
              [name, v],
              [name, '2'],
            ] as const,
        );
        for (const pairs of [...values.map((v) => [[name, v]] as const), ...repeated]) {
          {
            const a = await send('GET', `${path}?${queryOf(pairs)}`, { headers: auth });
            assertListAnswer(path, pairs, a);
          }
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(await snapshot(), before);
  });

  it('generated combinations of parameters (fixed seed)', async () => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(LISTS).filter((p) => !p.startsWith('/v2/parameter/'))),
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom(...new Set(Object.values(LISTS).flat())),
              fc.string({ maxLength: 8 }).filter((n) => n !== 'key'),
            ),
            fc.oneof(
              fc.constantFrom(...VALUES, ...TOKENS),
              fc.string({ maxLength: 30 }),
              fc.integer().map(String),
            ),
          ),
          { maxLength: 5 },
        ),
        async (path, pairs) => {
          const a = await send('GET', `${path}?${queryOf(pairs)}`, { headers: auth });
          assertListAnswer(path, pairs, a);
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
    assert.deepEqual(failures, []);
    assert.equal(await snapshot(), before);
  });

  it(
    'bodies: bad JSON, wrong content types, oversized, deeply nested; the documented 4xx and nothing stored',
    engineFree,
    async () => {
      const before = await snapshot();
      const bodies: [string | undefined, string | Buffer][] = [
        ['application/json', ''],
        ['application/json', '{'],
        ['application/json', 'null'],
        ['application/json', '[]'],
        ['application/json', '"x"'],
        ['application/json', '{"classifications":"telegram.earthquake"}'],
        ['application/json', '{"classifications":[]}'],
        ['application/json', '{"classifications":[1]}'],
        ['application/json', `{"classifications":${'['.repeat(10_000)}`],
        [
          'application/json',
          `{"classifications":["telegram.earthquake"],"types":${JSON.stringify(Array(31).fill('VXSE53'))}}`,
        ],
        ['application/json', '{"classifications":["telegram.earthquake"],"appName":"あいうえおかきくけ"}'],
        ['application/json', '{"classifications":["telegram.earthquake"],"formatMode":"xml"}'],
        ['application/json', '{"classifications":["telegram.earthquake"],"test":"only"}'],
        ['application/json', '{"classifications":["telegram.earthquake"],"after":"x"}'],
        ['application/json', '{"classifications":["telegram.earthquake"],"areas":["999999999"]}'],
        ['application/json', '{"classifications":["telegram.earthquake"],"minIntensity":"8"}'],
        ['application/json', `{"classifications":["${'x'.repeat(70_000)}"]}`],
        ['application/json; charset=utf-16', '{"classifications":["telegram.earthquake"],"types":1}'],
        ['application/xml', '<classifications/>'],
        ['text/plain', 'classifications=telegram.earthquake'],
        ['application/x-www-form-urlencoded', 'classifications=%ZZ'],
        ['multipart/form-data; boundary=x', '--x\r\n'],
        [undefined, Buffer.from([0xff, 0xfe, 0x00, 0x7b])],
        ['application/octet-stream', Buffer.alloc(200_000, 0x7b)],
      ];
      for (const [type, body] of bodies) {
        const a = await send('POST', '/v2/socket', {
          headers: { ...auth, ...(type ? { 'content-type': type } : {}) },
          body,
        });
        assert.ok(
          [400, 413].includes(a.status),
          `POST /v2/socket ${type} → ${a.status} ${a.text.slice(0, 150)}`,
        );
        assertEnvelopeError(a, `POST /v2/socket ${type} ${String(body).slice(0, 40)}`);
        // Bodies to routes that take none, and to the admin ingest without the admin scope.
        for (const [method, path] of [
          ['DELETE', '/v2/socket/999999'],
          ['POST', '/admin/v1/telegrams'],
          ['POST', '/admin/v1/scenarios'],
        ] as const) {
          const b = await send(method, path, {
            headers: { ...auth, ...(type ? { 'content-type': type } : {}) },
            body,
          });
          assert.ok(b.status >= 400 && b.status < 500, `${method} ${path} ${type} → ${b.status}`);
          assertEnvelopeError(b, `${method} ${path} ${type}`);
        }
      }
      assert.deepEqual(failures, []);
      assert.equal(await snapshot(), before);
    },
  );

  it('valid paging: newest first, default 20, at most 100, nextToken exactly while older items exist', async () => {
    const lists: {
      path: string;
      cursor: string;
      order: (item: Record<string, number>) => number;
      extra?: string;
    }[] = [
      { path: '/v2/telegram', cursor: 'cursorToken', order: (i) => i.serial! },
      {
        path: '/v2/telegram',
        cursor: 'cursorToken',
        order: (i) => i.serial!,
        extra: 'formatMode=json&test=including',
      },
      {
        path: '/telegram/v1/list',
        cursor: 'nextToken',
        order: (i) => (i.data as unknown as { sendNumber: number }).sendNumber,
      },
      { path: '/v2/gd/earthquake', cursor: 'cursorToken', order: (i) => i.id! },
      { path: '/v2/gd/eew', cursor: 'cursorToken', order: (i) => i.id! },
      { path: '/v2/socket', cursor: 'cursorToken', order: (i) => i.id! },
    ];
    for (const { path, cursor, order, extra } of lists) {
      const all = await send('GET', `${path}?limit=100${extra ? `&${extra}` : ''}`, { headers: auth });
      assert.equal(all.status, 200, path);
      const everything: number[] = all.json.items.map(order);
      assert.ok(everything.length > 1, `${path}: ${everything.length} items`);
      assert.deepEqual(
        everything,
        [...everything].sort((a, b) => b - a),
        `${path}: newest first`,
      );
      assert.equal(all.json.nextToken, undefined, `${path}: no nextToken when everything is listed`);
      // The default page: 20 (the v1 list: 100).
      const first = await send('GET', `${path}${extra ? `?${extra}` : ''}`, { headers: auth });
      const defaultLimit = path === '/telegram/v1/list' ? 100 : 20;
      assert.equal(
        first.json.items.length,
        Math.min(defaultLimit, everything.length),
        `${path}: default limit`,
      );
      assert.equal(
        'nextToken' in first.json,
        everything.length > defaultLimit,
        `${path}: nextToken on the default page`,
      );
      for (const limit of [1, 2, everything.length - 1, everything.length]) {
        const seen: number[] = [];
        let token: string | undefined;
        let pages = 0;
        do {
          const q = [`limit=${limit}`, ...(extra ? [extra] : []), ...(token ? [`${cursor}=${token}`] : [])];
          const page = await send('GET', `${path}?${q.join('&')}`, { headers: auth });
          assert.equal(page.status, 200, `${path}?${q.join('&')}: ${page.text.slice(0, 150)}`);
          assert.ok(page.json.items.length <= limit);
          seen.push(...page.json.items.map(order));
          token = page.json.nextToken;
          // nextToken exactly when older items remain.
          assert.equal(
            token !== undefined,
            seen.length < everything.length,
            `${path} limit ${limit} after ${seen.length}`,
          );
          assert.ok(++pages <= everything.length + 1, `${path}: paging does not end`);
        } while (token !== undefined);
        assert.deepEqual(seen, everything, `${path} limit ${limit}: every item once, in order`);
      }
      const over = await send('GET', `${path}?limit=101`, { headers: auth });
      assert.equal(over.status, 400, `${path}?limit=101`);
      assert.equal(over.json.error.message, 'Unexpected data of search query `limit`.');
    }
  });

  // Defects the pass found, each stated on its own.

  it('datetime bounds beyond the years 0001–9999 select what the nearest bound would, on every engine', async () => {
    const get = async (path: string) => {
      const a = await send('GET', path, { headers: auth });
      assert.equal(a.status, 200, `${path}: ${a.text.slice(0, 150)}`);
      return a.json.items.map((i: { id: number | string }) => i.id);
    };
    for (const list of ['/v2/gd/eew', '/v2/telegram']) {
      const all = await get(`${list}?limit=100`);
      assert.ok(all.length > 0, list);
      const q = (datetime: string) => `${list}?limit=100&datetime=${encodeURIComponent(datetime)}`;
      assert.deepEqual(await get(q('0000-01-01T00:00:00~')), all, `${list}: from year 0`);
      assert.deepEqual(await get(q('~9999-12-31T23:59:59-14:00')), all, `${list}: before year 10000`);
      assert.deepEqual(await get(q('~0001-01-01T00:00:00')), [], `${list}: before year 1 (UTC)`);
      assert.deepEqual(await get(q('9999-12-31T23:59:59-09:00~')), [], `${list}: from year 10000`);
    }
  });

  it(
    'a request that reaches no route is 404, or 405 on a known path, whatever its body',
    engineFree,
    async () => {
      for (const [method, path, status, type, body] of [
        ['PUT', '/v2/telegram', 405, 'application/json', '{'],
        ['POST', '/v2/contract', 405, 'application/json', '{"a":'],
        ['PATCH', '/v2/gd/eew', 405, 'application/json', 'x'.repeat(100_000)],
        ['POST', '/v2/nothing', 404, 'application/json', '{'],
        ['POST', '/telegram/v1/list/x', 404, 'text/plain', 'x'.repeat(100_000)],
      ] as const) {
        const a = await send(method, path, { headers: { ...auth, 'content-type': type }, body });
        assert.equal(a.status, status, `${method} ${path}: ${a.text.slice(0, 150)}`);
        assertEnvelopeError(a, `${method} ${path}`);
        assert.equal(a.json.error.message, status === 404 ? 'Not found.' : 'Method not allowed.');
      }
    },
  );

  it(
    'under /v1/, a request that reaches no route is answered in plain text like a telegram body',
    engineFree,
    async () => {
      for (const [method, path, status, message] of [
        ['GET', '/v1/a/b', 404, 'Not found.'],
        ['PUT', `/v1/${'a'.repeat(96)}`, 405, 'Method not allowed.'],
        ['DELETE', '/v1/x', 405, 'Method not allowed.'],
      ] as const) {
        const a = await send(method, path, { headers: auth });
        assert.equal(a.status, status, `${method} ${path}`);
        assert.match(a.type, /^text\/plain/, `${method} ${path}: ${a.type}`);
        assert.equal(a.text, message, `${method} ${path}`);
      }
    },
  );

  it('a telegram dated outside the years 0001–9999 is refused with its reason on every engine, storing nothing', async () => {
    const before = await snapshot();
    const xml = readFileSync(fixture('official', '32-35_06_06_100915_VXSE53.xml'), 'utf8');
    const dated = (time: string) => xml.replace(/<ReportDateTime>[^<]*</, `<ReportDateTime>${time}<`);
    for (const [query, body, reason] of [
      [
        '',
        dated('0000-06-14T09:00:00+09:00'),
        'Head/ReportDateTime is not an ISO 8601 time of the years 0001 to 9999',
      ],
      [
        '',
        dated('+010000-06-14T09:00:00+09:00'),
        'Head/ReportDateTime is not an ISO 8601 time of the years 0001 to 9999',
      ],
      ['?time=0000-01-01T00%3A00%3A00Z', xml, 'invalid time "0000-01-01T00:00:00Z"'],
      ['?time=%2B010000-01-01T00%3A00%3A00Z', xml, 'invalid time "+010000-01-01T00:00:00Z"'],
    ] as const) {
      const a = await send('POST', `/admin/v1/telegrams${query}`, {
        headers: { ...adminAuth, 'content-type': 'application/xml' },
        body,
      });
      assert.equal(a.status, 400, `${query} ${a.text.slice(0, 200)}`);
      assert.equal(a.json.error.message, `Telegram rejected: ${reason}.`);
    }
    assert.equal(await snapshot(), before);
  });
});
