import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { fixture } from '../support/fixtures.ts';
import { getJson, settle } from '../support/data-api.ts';
import { testFetch } from '../support/fetch.ts';

describe('POST /admin/v1/telegrams', () => {
  let server: TestServer;
  let adminKey: string;
  let adminNoScopeKey: string;
  let userKey: string;
  let listKey: string;
  const xml = readFileSync(fixture('official', '32-35_06_06_100915_VXSE53.xml'));

  before(async () => {
    server = await startTestServer({ listen: false, config: { maxTelegramBytes: 64 * 1024 } });
    const admin = await server.createAccount({
      admin: true,
      contracts: ['telegram.earthquake', 'telegram.observation'],
    });
    adminKey = await server.createApiKey(admin.account.id, ['admin.telegram.ingest']);
    adminNoScopeKey = await server.createApiKey(admin.account.id, ['telegram.list']);
    listKey = adminNoScopeKey;
    const user = await server.createAccount();
    userKey = await server.createApiKey(user.account.id, ['admin.telegram.ingest']);
  });
  after(() => server.close());

  const post = (body: string | Buffer, query = '', key = adminKey, contentType = 'application/xml') =>
    getJson(server, `/admin/v1/telegrams?key=${key}${query}`, {
      method: 'POST',
      body,
      headers: { 'content-type': contentType },
    });
  const count = async () =>
    (await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM telegrams'))[0]!.n;

  it('stores a telegram once and acknowledges the duplicate', async () => {
    const first = await post(xml);
    assert.equal(first.status, 200);
    assert.equal(first.body.status, 'ok');
    assert.equal(first.body.classification, 'telegram.earthquake');
    assert.equal(first.body.duplicate, false);
    assert.match(first.body.id, /^[0-9a-f]{96}$/);
    const again = await post(xml, '', adminKey, 'text/plain');
    assert.deepEqual(
      [again.body.serial, again.body.id, again.body.duplicate],
      [first.body.serial, first.body.id, true],
    );
    await settle(server);
    const listed = await getJson(server, `/v2/telegram?key=${listKey}`);
    assert.equal(listed.body.items[0].serial, first.body.serial);
    const metrics = await (await testFetch(`${server.url}/metrics`)).text();
    assert.match(
      metrics,
      /namazu_telegrams_ingested_total\{classification="telegram.earthquake",source="http"\} 1\n/,
    );
    assert.equal(listed.body.items[0].head.type, 'VXSE53');
  });

  it('counts stored XML telegrams whose type has no converter, by type', async () => {
    const seasonal = readFileSync(fixture('official', '01_01_01_091210_VGSK50.xml'));
    assert.equal((await post(seasonal)).body.duplicate, false);
    assert.equal((await post(seasonal)).body.duplicate, true);
    const metrics = await (await testFetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /namazu_telegrams_without_converter_total\{type="VGSK50"\} 1\n/);
    // VXSE53 (ingested above) has a converter.
    assert.doesNotMatch(metrics, /namazu_telegrams_without_converter_total\{type="VXSE53"\}/);
  });

  it('takes the transport facts as query parameters', async () => {
    const r = await post(
      'AAXX 11001 47401 11450=',
      '&type=SMJP01&author=RJTD&time=2026-03-11T00:00:00Z&receivedTime=2026-03-11T00:00:05.123Z',
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.classification, 'telegram.observation');
    await settle(server);
    const listed = await getJson(server, `/v2/telegram?key=${listKey}&type=SMJP01`);
    assert.equal(listed.body.items[0].receivedTime, '2026-03-11T00:00:05.123Z');
    assert.equal(listed.body.items[0].head.time, '2026-03-11T00:00:00.000Z');
    assert.equal(listed.body.items[0].format, 'a/n');
  });

  it('rejects invalid telegrams with the reason and stores nothing', async () => {
    const n = await count();
    const cases: [string | Buffer, string, string][] = [
      ['<Report><Control></Report>', '', /^Telegram rejected: malformed XML/.source],
      ['', '', '^Telegram rejected: empty telegram\\.$'],
      ['AAXX 11001 47401=', '', 'needs a JMA header or a type'],
      [xml, '&type=vxse53', 'invalid type'],
      [xml, '&receivedTime=yesterday', '^Unexpected data of search query `receivedTime`\\.$'],
      ['<!DOCTYPE x [<!ENTITY a "b">]><Report/>', '', 'DOCTYPE'],
    ];
    for (const [body, query, message] of cases) {
      const r = await post(body, query);
      assert.equal(r.status, 400, message);
      assert.match(r.body.error.message, new RegExp(message));
    }
    assert.equal(await count(), n);
  });

  it('a body one byte over NAMAZU_MAX_TELEGRAM_BYTES is 413, counted, and stores nothing', async () => {
    const refused = () =>
      server.ctx.metrics.telegramsTooLarge
        .get()
        .then((m) => m.values.find((v) => v.labels.path === 'http')?.value ?? 0);
    const [n, before] = [await count(), await refused()];
    const r = await post(Buffer.alloc(64 * 1024 + 1, 0x41));
    assert.equal(r.status, 413);
    assert.equal(r.body.error.message, 'Payload too large.');
    assert.equal(await refused(), before + 1);
    assert.equal(await count(), n);
  });

  it('needs an administrator account holding admin.telegram.ingest', async () => {
    const n = await count();
    const user = await post(xml, '', userKey);
    assert.equal(user.status, 403);
    assert.equal(user.body.error.message, 'Insufficient scope for `admin.telegram.ingest`.');
    const noScope = await post(xml, '', adminNoScopeKey);
    assert.equal(noScope.status, 403);
    const anonymous = await getJson(server, '/admin/v1/telegrams', { method: 'POST', body: xml });
    assert.equal(anonymous.status, 401);
    assert.equal(await count(), n);
  });
});
