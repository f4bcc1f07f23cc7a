import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { addContract } from '../../src/accounts/contracts.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { fixture } from '../support/fixtures.ts';
import { getJson } from '../support/data-api.ts';
import { testFetch } from '../support/fetch.ts';

describe('GET {data_url}/v1/:id', () => {
  let server: TestServer;
  let key: string;
  let quakeOnlyKey: string;
  let noDataKey: string;
  const ids: Record<string, string> = {};
  const xmlPath = fixture('official', '32-35_01_03_100514_VXSE53.xml');
  const vgskPath = fixture('official', '01_01_01_091210_VGSK50.xml');
  const anText = 'AAXX 11001\r\r\n47401 11450 81504=\r\r\n';
  const binary = Buffer.from('BUFR\x00\x01\x02\xff\xfe', 'latin1');

  before(async () => {
    server = await startTestServer({ listen: false });
    const { account } = await server.createAccount();
    key = await server.createApiKey(account.id, [
      'telegram.data',
      'telegram.get.earthquake',
      'telegram.get.observation',
    ]);
    quakeOnlyKey = await server.createApiKey(account.id, ['telegram.data', 'telegram.get.earthquake']);
    noDataKey = await server.createApiKey(account.id, ['telegram.list', 'telegram.get.earthquake']);
    const classifications = new Set<string>();
    const put = async (name: string, raw: Buffer, fileName?: string) => {
      const outcome = await ingestTelegram(server.ctx, raw, { fileName, receivedTime: Date.now() });
      assert.ok(outcome.ok, !outcome.ok ? outcome.reason : '');
      ids[name] = outcome.stored.id;
      classifications.add(outcome.stored.classification);
    };
    await put('xml', readFileSync(xmlPath), '32-35_01_03_100514_VXSE53.xml');
    await put('vgsk', readFileSync(vgskPath), '01_01_01_091210_VGSK50.xml');
    await put('an', Buffer.from(`SMJP01 RJTD 110000\r\r\n${anText}`));
    await put('binary', Buffer.concat([Buffer.from('IXAC41 RJTD 110000\r\r\n'), binary]));
    for (const c of classifications) await addContract(server.ctx.db, account.id, c);
  });
  after(() => server.close());

  const url = (id: string, k = key) => `${server.url}/v1/${id}?key=${k}`;
  /** The response bytes as sent (fetch would decode gzip itself). */
  const rawGet = async (address: string, headers: Record<string, string> = {}) => {
    const { host, pathname, search } = new URL(address);
    const res = await server.app.inject({ url: pathname + search, headers: { host, ...headers } });
    return { status: res.statusCode, headers: res.headers, body: res.rawPayload };
  };

  it('XML: the uncompressed body as application/xml, cacheable forever', async () => {
    const r = await rawGet(url(ids.xml!));
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/xml; charset=utf-8');
    assert.equal(r.headers['content-encoding'], undefined);
    assert.deepEqual(r.body, readFileSync(xmlPath));
    assert.match(String(r.headers['cache-control']), /max-age=31536000, immutable/);
    assert.equal(r.headers.etag, `"${ids.xml}"`);
  });

  it('XML with Accept-Encoding: gzip: the stored gzip stream, whose SHA-384 is the id', async () => {
    const r = await rawGet(url(ids.xml!), { 'accept-encoding': 'br, gzip;q=0.8' });
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.equal(createHash('sha384').update(r.body).digest('hex'), ids.xml);
    assert.deepEqual(gunzipSync(r.body), readFileSync(xmlPath));
    const refused = await rawGet(url(ids.xml!), { 'accept-encoding': 'gzip;q=0' });
    assert.equal(refused.headers['content-encoding'], undefined);
  });

  it('VGSK50, A/N and binary bodies', async () => {
    const vgsk = await rawGet(url(ids.vgsk!), { 'accept-encoding': 'gzip' });
    assert.equal(vgsk.headers['content-type'], 'application/xml; charset=utf-8');
    assert.deepEqual(vgsk.body, readFileSync(vgskPath));
    const an = await rawGet(url(ids.an!));
    assert.equal(an.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(an.body.toString(), anText);
    const bin = await rawGet(url(ids.binary!));
    assert.equal(bin.headers['content-type'], 'application/octet-stream');
    assert.deepEqual(bin.body, binary);
  });

  it('If-None-Match answers 304', async () => {
    const r = await rawGet(url(ids.xml!), { 'if-none-match': `"${ids.xml}"` });
    assert.equal(r.status, 304);
    assert.equal(r.body.length, 0);
  });

  it('If-None-Match as RFC 9110 has it: a list, a weak tag, or `*` answers 304; another tag 200', async () => {
    for (const header of [`"other", "${ids.xml}"`, `W/"${ids.xml}"`, '*'])
      assert.equal((await rawGet(url(ids.xml!), { 'if-none-match': header })).status, 304, header);
    assert.equal((await rawGet(url(ids.xml!), { 'if-none-match': '"other"' })).status, 200);
  });

  it('errors are plain text with the right status', async () => {
    const cases: [string, Record<string, string>, number, string][] = [
      [`${server.url}/v1/${ids.xml}`, {}, 401, 'Authentication required.'],
      [url(ids.xml!, 'AKe.nope'), {}, 401, 'Authentication required.'],
      [url(ids.xml!, noDataKey), {}, 403, 'Insufficient scope for `telegram.data`.'],
      [url(ids.vgsk!, quakeOnlyKey), {}, 403, 'Insufficient scope for `telegram.get.observation`.'],
      [url('0'.repeat(96)), {}, 404, 'Not found.'],
      [url('not-an-id'), {}, 404, 'Not found.'],
    ];
    for (const [u, headers, status, message] of cases) {
      const r = await rawGet(u, headers);
      assert.equal(r.status, status, u);
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(r.body.toString(), message);
    }
    const unauth = await rawGet(`${server.url}/v1/${ids.xml}`);
    assert.match(String(unauth.headers['www-authenticate']), /^Bearer/);
  });
});

describe('GET /v2/contract', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ listen: false });
  });
  after(() => server.close());

  it('every plan; contracted ones with id, start and isValid', async () => {
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake', 'websocket.plus2'] });
    const key = await server.createApiKey(account.id, ['contract.list']);
    const r = await getJson(server, `/v2/contract?key=${key}`);
    assert.equal(r.status, 200);
    const body = r.body;
    assert.equal(body.status, 'ok');
    const quake = body.items.find(
      (i: { classification: string }) => i.classification === 'telegram.earthquake',
    );
    assert.equal(typeof quake.id, 'number');
    assert.equal(quake.isValid, true);
    assert.equal(quake.classifications, 'telegram.earthquake');
    assert.ok(!Number.isNaN(Date.parse(quake.start)));
    assert.deepEqual(Object.keys(quake).sort(), [
      'classification',
      'classifications',
      'connectionCounts',
      'id',
      'isValid',
      'planId',
      'planName',
      'price',
      'start',
    ]);
    const plus2 = body.items.find((i: { classification: string }) => i.classification === 'websocket.plus2');
    assert.equal(plus2.connectionCounts, 2);
    assert.equal(plus2.isValid, true);
    const volcano = body.items.find(
      (i: { classification: string }) => i.classification === 'telegram.volcano',
    );
    assert.deepEqual([volcano.id, volcano.start, volcano.isValid], [null, null, false]);
    assert.deepEqual(Object.keys(volcano.price).sort(), ['day', 'month']);
  });

  it('needs contract.list', async () => {
    const { account } = await server.createAccount();
    const key = await server.createApiKey(account.id, ['telegram.list']);
    const r = await getJson(server, `/v2/contract?key=${key}`);
    assert.equal(r.status, 403);
    assert.equal(r.body.error.message, 'Insufficient scope for `contract.list`.');
    assert.equal((await testFetch(`${server.url}/v2/contract`)).status, 401);
  });
});
