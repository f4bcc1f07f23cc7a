/**
 * The station parameter API (docs/parameter.md) against JMA's published lists in the shared folder:
 * the documented fields of the production service, its scopes and contract, caching, and the
 * official SDK's calls.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DMDATA } from '@dmdata/sdk-js';
import { auth as basicAuth } from '../support/processes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { accessToken, getJson } from '../support/data-api.ts';
import { publishedStations, stationsDir } from './published.ts';
import { testFetch } from '../support/fetch.ts';

const tsunamiRows = () =>
  readFileSync(join(stationsDir, 'PointTsunami.csv'), 'utf8')
    .trimEnd()
    .split(/\r?\n/)
    .map((l) => l.split(','));

/** The fields docs/reference/api/v2/parameter.earthquake.md and parameter.tsunami.md list for an item. */
const EARTHQUAKE_FIELDS = [
  'city',
  'code',
  'kana',
  'latitude',
  'longitude',
  'name',
  'noCode',
  'owner',
  'region',
  'status',
];
const TSUNAMI_FIELDS = ['area', 'code', 'kana', 'latitude', 'longitude', 'name', 'owner', 'prefecture'];

/** The official SDK's services at this server (production paths under /v2). */
const sdkEndpoints = (url: string) => ({
  contract: `${url}/v2/contract`,
  socket: `${url}/v2/socket`,
  telegram: `${url}/v2/telegram`,
  'telegram/body': `${url}/v1`,
  parameter: `${url}/v2/parameter`,
  'gd/earthquake': `${url}/v2/gd/earthquake`,
  'gd/eew': `${url}/v2/gd/eew`,
});

describe('GET /v2/parameter/{earthquake,tsunami}/station', () => {
  let server: TestServer;
  let key: string;
  const auth = (k: string) => ({ headers: basicAuth(k) });

  before(async () => {
    server = await startTestServer({ config: { dpopNonce: false } });
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    key = await server.createApiKey(account.id, ['parameter.earthquake', 'parameter.tsunami']);
  });
  after(() => server.close());

  it('lists every seismic-intensity station of JMA’s list in the documented shape', async () => {
    const r = await getJson(server, '/v2/parameter/earthquake/station', auth(key));
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'ok');
    assert.match(r.body.responseId, /^[0-9a-f]{16}$/);
    assert.match(r.body.responseTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(r.body.changeTime, '2026-03-12T03:00:00.000Z', 'JMA applied the shipped list at 12:00 JST');
    assert.match(r.body.version, /^[0-9a-f]{16}$/);
    const published = publishedStations();
    assert.equal(r.body.items.length, published.length);
    const byCode = new Map(r.body.items.map((i: { code: string }) => [i.code, i]));
    for (const s of published) {
      const item = byCode.get(s.code) as Record<string, unknown>;
      assert.ok(item, s.code);
      assert.deepEqual(Object.keys(item).sort(), EARTHQUAKE_FIELDS);
      assert.deepEqual(item, {
        region: { code: s.area.code, name: s.area.name, kana: s.area.furigana },
        city: { code: s.city.code, name: s.city.name, kana: s.city.furigana },
        noCode: s.code,
        code: s.code,
        name: s.name,
        kana: s.furigana,
        status: '現',
        owner: s.affi,
        latitude: String(s.lat),
        longitude: String(s.lon), // one row of JMA's list gives a number
      });
    }
  });

  it('lists every tsunami observation point, with empty positions where JMA publishes none', async () => {
    const r = await getJson(server, '/v2/parameter/tsunami/station', auth(key));
    assert.equal(r.status, 200);
    const rows = tsunamiRows();
    assert.equal(r.body.items.length, rows.length);
    for (const [i, [code, name, kana]] of rows.entries()) {
      const item = r.body.items[i];
      assert.deepEqual(Object.keys(item).sort(), TSUNAMI_FIELDS);
      assert.deepEqual(item, {
        area: null,
        prefecture: null,
        // The table lost some leading zeros; the served code is the telegrams' five digits.
        code: code!.padStart(5, '0'),
        name,
        kana,
        owner: '',
        latitude: '',
        longitude: '',
      });
    }
  });

  it('is cacheable: an ETag that answers 304, a private Cache-Control, a new id each time', async () => {
    const first = await testFetch(`${server.url}/v2/parameter/earthquake/station`, auth(key));
    const etag = first.headers.get('etag');
    assert.match(etag ?? '', /^W\/"earthquake-[0-9a-f]{16}"$/);
    assert.equal(first.headers.get('cache-control'), 'private, max-age=3600');
    const again = await testFetch(`${server.url}/v2/parameter/earthquake/station`, auth(key));
    assert.equal(again.headers.get('etag'), etag);
    assert.notEqual(
      ((await first.json()) as { responseId: string }).responseId,
      ((await again.json()) as { responseId: string }).responseId,
    );
    const revalidated = await testFetch(`${server.url}/v2/parameter/earthquake/station`, {
      headers: { ...auth(key).headers, 'if-none-match': etag! },
    });
    assert.equal(revalidated.status, 304);
    assert.equal(await revalidated.text(), '');
  });

  it('needs credentials, the scope and an earthquake contract', async () => {
    const anonymous = await getJson(server, '/v2/parameter/earthquake/station');
    assert.equal(anonymous.status, 401);
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const listOnly = await server.createApiKey(account.id, ['telegram.list', 'parameter.earthquake']);
    const noScope = await getJson(server, '/v2/parameter/tsunami/station', auth(listOnly));
    assert.equal(noScope.status, 403);
    assert.equal(noScope.body.error.message, 'Insufficient scope for `parameter.tsunami`.');
    const other = await server.createAccount({ contracts: ['telegram.volcano'] });
    const noContract = await getJson(
      server,
      '/v2/parameter/earthquake/station',
      auth(await server.createApiKey(other.account.id, ['parameter.earthquake'])),
    );
    assert.equal(noContract.status, 402);
    assert.equal(noContract.body.error.message, 'No contract.');
  });

  it('answers the official SDK, with an API key and with a client_credentials token', async () => {
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    // Real earthquake apps ask for the parameter scope beside the telegram ones.
    const token = await accessToken(server, account.id, [
      'telegram.list',
      'parameter.earthquake',
      'parameter.tsunami',
    ]);
    for (const credentials of [{ apikey: key }, { getAuthorization: async () => `Bearer ${token}` }]) {
      const sdk = new DMDATA({ credentials, endpoints: sdkEndpoints(server.url) });
      const earthquake = await sdk.parameter.earthquake();
      assert.equal(earthquake.data.status, 'ok');
      assert.equal(earthquake.data.items.length, publishedStations().length);
      const ishikari = earthquake.data.items.find((i) => i.code === '0123500');
      assert.equal(ishikari?.name, '石狩市花川');
      assert.equal(ishikari?.latitude, '43.17');
      const tsunami = await sdk.parameter.tsunami();
      assert.equal(tsunami.data.items.length, tsunamiRows().length);
    }
  });
});
