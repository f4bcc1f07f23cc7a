/**
 * Generated bad filter values, cursor tokens and event ids on /v2/gd/* never give a 5xx, and a
 * rejected value is the documented 400 naming its parameter (behaviour.md §3, §4).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../support/server.ts';
import { CHAIN_2008, ingestNamed, REAL_2021 } from './gd-support.ts';

const NAMES = ['hypocenter', 'maxInt', 'date', 'limit', 'cursorToken', 'datetime'];

/** A token-shaped string: base64url of `<list>.<direction>.<position>` with odd parts. */
const token = fc
  .tuple(
    fc.constantFrom('gdeq', 'gdeew', 'v2t', 'v1', '', 'gdeq.gdeq'),
    fc.constantFrom('o', 'n', 'x', '', 'older'),
    fc.oneof(
      fc.integer().map(String),
      fc.constantFrom('-1', '0', '1e309', 'NaN', '9'.repeat(40), '1.5', '0x10', ' 1', ''),
      fc.string({ maxLength: 12 }),
    ),
  )
  .map(([list, direction, position]) =>
    Buffer.from(`${list}.${direction}.${position}`).toString('base64url'),
  );

const value = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    '',
    '+',
    ' ',
    '5+',
    '5 ',
    '6-',
    '%2B',
    '%',
    '10',
    '-1',
    '101',
    '1e3',
    '0289',
    '2021-02-29',
    '0000-01-01',
    '9999-12-31T99:99',
    '2021-02-18T',
    '~',
    '2021-02-18T00:00:00~2021-02-18T00:00:00',
    '~x',
  ),
  fc.integer().map(String),
  token,
);

describe('robustness of /v2/gd/*: generated input never gives a 5xx or changes data', () => {
  let server: TestServer;
  let key: string;
  let snapshot: () => Promise<string>;

  before(async () => {
    server = await startTestServer();
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'eew.forecast', 'eew.warning'],
    });
    key = await server.createApiKey(account.id, ['gd.earthquake', 'gd.eew']);
    await ingestNamed(server, [
      ...REAL_2021.slice(0, 7),
      ...CHAIN_2008.slice(0, 3),
      '77_01_32_240613_VXSE45.xml',
      '77_01_33_240613_VXSE45.xml',
    ]);
    snapshot = async () =>
      JSON.stringify(
        await server.ctx.db.query(
          `SELECT (SELECT count(*)::int FROM telegrams) AS t,
                  (SELECT count(*)::int FROM gd_earthquake_events) AS e,
                  (SELECT count(*)::int FROM gd_eew_reports) AS r`,
        ),
      );
  });
  after(() => server.close());

  it('query strings on the lists: below 500; a 400 names a parameter', async () => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/v2/gd/earthquake', '/v2/gd/eew'),
        // `key` carries the credential (its own tests are in test/access/): not generated here.
        fc.array(
          fc
            .tuple(fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 8 })), value)
            .filter(([n]) => n !== 'key'),
          { maxLength: 5 },
        ),
        async (path, pairs) => {
          const qs = new URLSearchParams(pairs);
          qs.append('key', key);
          const res = await fetch(`${server.url}${path}?${qs}`);
          const body = (await res.json()) as { error?: { message: string; code: number } };
          assert.ok(res.status < 500, `${path}?${qs} → ${res.status}`);
          assert.ok(res.status === 200 || res.status === 400, `${path}?${qs} → ${res.status}`);
          if (res.status === 400)
            assert.match(
              body.error!.message,
              /^Unexpected data of search query `[A-Za-z]+`\.$/,
              `${path}?${qs}`,
            );
        },
      ),
      { numRuns: 300 },
    );
    assert.equal(await snapshot(), before);
  });

  it('cursor tokens alone: 200 or the cursorToken 400', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v2/gd/earthquake', '/v2/gd/eew'), token, async (path, t) => {
        const res = await fetch(`${server.url}${path}?cursorToken=${encodeURIComponent(t)}&key=${key}`);
        const body = (await res.json()) as { error?: { message: string } };
        assert.ok(res.status === 200 || res.status === 400, `${path} ${t} → ${res.status}`);
        if (res.status === 400)
          assert.equal(body.error!.message, 'Unexpected data of search query `cursorToken`.');
      }),
      { numRuns: 200 },
    );
  });

  it('event ids: 200 or the 404 envelope', async () => {
    const before = await snapshot();
    const eventId = fc.oneof(
      fc.string({ minLength: 1, maxLength: 80 }),
      fc.stringMatching(/^[0-9]{1,20}$/),
      fc.constantFrom('20210217230627', '20080614084350', '20240417231454', '..', '%00', 'a'.repeat(300)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v2/gd/earthquake/', '/v2/gd/eew/'), eventId, async (path, id) => {
        const res = await fetch(`${server.url}${path}${encodeURIComponent(id)}?key=${key}`);
        const text = await res.text();
        assert.ok(res.status === 200 || res.status === 404, `${path}${id} → ${res.status} ${text}`);
        if (res.status === 404) {
          const body = JSON.parse(text) as { error: unknown };
          assert.deepEqual(body.error, { message: 'Not found.', code: 404 });
        }
      }),
      { numRuns: 300 },
    );
    assert.equal(await snapshot(), before);
  });

  it('ids the router rejects (too long, a broken escape) are the 404 envelope too', async () => {
    for (const path of ['/v2/gd/earthquake/', '/v2/gd/eew/'])
      for (const id of ['9'.repeat(201), 'a'.repeat(5000), '%E0%A4%A', '%', '%ZZ']) {
        const res = await fetch(`${server.url}${path}${id}?key=${key}`);
        assert.equal(res.status, 404, `${path}${id.slice(0, 20)}`);
        assert.match(res.headers.get('content-type')!, /^application\/json/);
        const body = (await res.json()) as { status: string; error: unknown };
        assert.equal(body.status, 'error');
        assert.deepEqual(body.error, { message: 'Not found.', code: 404 });
      }
  });
});
