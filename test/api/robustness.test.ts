import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../support/server.ts';
import { fixture } from '../support/fixtures.ts';
import { allFixtures, ingestFixtures } from '../support/data-api.ts';
import { testFetch } from '../support/fetch.ts';

const PATHS = [
  '/v2/telegram',
  '/telegram/v1/list',
  '/v2/contract',
  '/v1/',
  '/admin/v1/telegrams',
  '/openapi.json',
];
const NAMES = [
  'type',
  'type[]',
  'xmlReport',
  'xml',
  'test',
  'formatMode',
  'datetime',
  'cursorToken',
  'nextToken',
  'newCatch',
  'limit',
  'key',
];

describe('robustness: generated malformed input never gives a 5xx or changes data', () => {
  let server: TestServer;
  let key: string;
  let adminKey: string;
  let snapshot: () => Promise<string>;

  before(async () => {
    server = await startTestServer({ listen: false });
    const { account } = await server.createAccount({
      admin: true,
      contracts: ['telegram.earthquake', 'telegram.weather'],
    });
    key = await server.createApiKey(account.id, [
      'telegram.list',
      'telegram.data',
      'telegram.get.earthquake',
      'contract.list',
    ]);
    adminKey = await server.createApiKey(account.id, ['admin.telegram.ingest']);
    await ingestFixtures(server, allFixtures().slice(0, 60));
    snapshot = async () =>
      JSON.stringify(
        await server.ctx.db.query('SELECT count(*)::int AS n, max(serial) AS m, min(id) AS i FROM telegrams'),
      );
  });
  after(() => server.close());

  const value = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '',
      '~',
      'true',
      'only',
      'json',
      '0',
      '-1',
      '101',
      '1e3',
      '%',
      '%ZZ',
      'VXSE5,',
      'A,B,C,D,E,F',
      'djJ0Lm8uMQ',
    ),
    fc.integer().map(String),
    fc.base64String({ maxLength: 60 }),
  );
  const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 10 })), value), {
    maxLength: 6,
  });

  it('query strings on every read endpoint', async () => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS.filter((p) => !p.startsWith('/admin'))),
        query,
        fc.boolean(),
        async (path, pairs, withKey) => {
          const qs = new URLSearchParams(pairs);
          if (withKey) qs.append('key', key);
          const res = await testFetch(`${server.url}${path}${path === '/v1/' ? 'x'.repeat(96) : ''}?${qs}`);
          await res.arrayBuffer();
          assert.ok(res.status < 500, `${path}?${qs} → ${res.status}`);
        },
      ),
      { numRuns: 300 },
    );
    assert.equal(await snapshot(), before);
  });

  it('headers', async () => {
    const before = await snapshot();
    const headerValue = fc.oneof(
      fc.stringMatching(/^[\x20-\x7e]{0,80}$/),
      fc.constantFrom(
        'Basic',
        'Basic !!!',
        'Bearer',
        'Bearer ATn.x',
        'DPoP ATn.x',
        `Basic ${Buffer.from(':').toString('base64')}`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS.filter((p) => !p.startsWith('/admin'))),
        headerValue,
        headerValue,
        headerValue,
        async (path, authorization, acceptEncoding, ifNoneMatch) => {
          const res = await testFetch(`${server.url}${path}`, {
            headers: { authorization, 'accept-encoding': acceptEncoding, 'if-none-match': ifNoneMatch },
          });
          await res.arrayBuffer();
          assert.ok(res.status < 500, `${path} ${authorization} → ${res.status}`);
        },
      ),
      { numRuns: 200 },
    );
    assert.equal(await snapshot(), before);
  });

  it('bodies to the ingest endpoint: a 400 stores nothing, only a 200 stores one telegram', async () => {
    const valid = readFileSync(fixture('official', '32-35_06_06_100915_VXSE53.xml'));
    const mutated = fc
      .tuple(fc.nat({ max: valid.length }), fc.nat({ max: valid.length }), fc.uint8Array({ maxLength: 50 }))
      .map(([a, b, junk]) =>
        Buffer.concat([valid.subarray(0, Math.min(a, b)), junk, valid.subarray(Math.max(a, b))]),
      );
    const body = fc.oneof(
      mutated,
      fc.uint8Array({ maxLength: 500 }).map((b) => Buffer.from(b)),
      fc.string({ maxLength: 300 }).map((s) => Buffer.from(`<?xml version="1.0"?><!DOCTYPE r>${s}`)),
      fc
        .nat({ max: 200 })
        .map((n) => Buffer.from('<Report>' + '<a>'.repeat(n) + '</a>'.repeat(n) + '</Report>')),
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.constantFrom(
          'application/xml',
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
        ),
        async (b, contentType) => {
          const countBefore =
            // Received telegrams (a valid XML one also stores its JSON conversion, not counted here).
            (
              await server.ctx.db.query<{ n: number }>(
                "SELECT count(*)::int AS n FROM telegrams WHERE format <> 'json'",
              )
            )[0]!.n;
          const res = await testFetch(`${server.url}/admin/v1/telegrams?key=${adminKey}`, {
            method: 'POST',
            body: b,
            headers: { 'content-type': contentType },
          });
          const json = (await res.json()) as { status: string; duplicate?: boolean };
          assert.ok(res.status === 200 || res.status === 400, `status ${res.status}`);
          const countAfter =
            // Received telegrams (a valid XML one also stores its JSON conversion, not counted here).
            (
              await server.ctx.db.query<{ n: number }>(
                "SELECT count(*)::int AS n FROM telegrams WHERE format <> 'json'",
              )
            )[0]!.n;
          assert.equal(countAfter - countBefore, res.status === 200 && !json.duplicate ? 1 : 0);
        },
      ),
      { numRuns: 150 },
    );
  });
});
