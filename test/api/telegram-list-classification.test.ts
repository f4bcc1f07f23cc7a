import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { allFixtures, getJson, ingestFixtures } from '../support/data-api.ts';

/**
 * `classification` of GET /v2/telegram: the production reference lists it beside `type` — one
 * classification, or several separated by commas — and clients that send it expect the list
 * narrowed to them.
 */
describe('GET /v2/telegram?classification=', () => {
  let server: TestServer;
  let key: string;
  let quakeOnlyKey: string;
  const stored = new Map<string, number[]>();

  before(async () => {
    server = await startTestServer({ listen: false });
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'telegram.volcano', 'telegram.weather', 'eew.forecast'],
    });
    key = await server.createApiKey(account.id, ['telegram.list']);
    const quake = await server.createAccount({ contracts: ['telegram.earthquake'] });
    quakeOnlyKey = await server.createApiKey(quake.account.id, ['telegram.list']);
    const wanted = ['telegram.earthquake', 'telegram.volcano', 'telegram.weather', 'eew.forecast'];
    for (const entry of allFixtures().filter(
      (e) => wanted.includes(e.classification) && e.status === '通常',
    )) {
      const [serial] = await ingestFixtures(server, [entry]);
      stored.set(entry.classification, [...(stored.get(entry.classification) ?? []), serial!]);
    }
  });
  after(() => server.close());

  const list = (query: string, k = key) => getJson(server, `/v2/telegram?key=${k}&limit=100&${query}`);
  const newest = (...names: string[]) =>
    names
      .flatMap((n) => stored.get(n) ?? [])
      .sort((a, b) => b - a)
      .slice(0, 100);

  it('one classification lists only its telegrams', async () => {
    const res = await list('classification=telegram.volcano');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.items.map((i: { serial: number }) => i.serial),
      newest('telegram.volcano'),
    );
    assert.ok(res.body.items.length > 0);
    assert.ok(
      res.body.items.every((i: { classification: string }) => i.classification === 'telegram.volcano'),
    );
  });

  it('a comma-separated list names several', async () => {
    const res = await list('classification=telegram.volcano,telegram.weather');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.items.map((i: { serial: number }) => i.serial),
      newest('telegram.volcano', 'telegram.weather'),
    );
    assert.ok(
      res.body.items.some((i: { classification: string }) => i.classification === 'telegram.weather'),
    );
  });

  it('works with the other filters and its cursors', async () => {
    const page = await getJson(
      server,
      `/v2/telegram?key=${key}&classification=telegram.earthquake&type=VXSE5&limit=3`,
    );
    assert.equal(page.status, 200);
    assert.equal(page.body.items.length, 3);
    const next = await getJson(
      server,
      `/v2/telegram?key=${key}&classification=telegram.earthquake&type=VXSE5&limit=3&cursorToken=${page.body.nextToken}`,
    );
    assert.ok(next.body.items.length > 0);
    for (const item of [...page.body.items, ...next.body.items]) {
      assert.equal(item.classification, 'telegram.earthquake');
      assert.match(item.head.type, /^VXSE5/);
    }
  });

  it('a classification not contracted, or an early warning, lists nothing', async () => {
    const notContracted = await list('classification=telegram.volcano', quakeOnlyKey);
    assert.equal(notContracted.status, 200);
    assert.deepEqual(notContracted.body.items, []);
    assert.equal(typeof notContracted.body.nextPooling, 'string');
    const eew = await list('classification=eew.forecast');
    assert.equal(eew.status, 200);
    assert.deepEqual(eew.body.items, []);
  });

  it('an unknown classification is a bad value of the parameter', async () => {
    for (const bad of ['telegram.quake', 'telegram.volcano,', 'telegram.volcano,,telegram.weather']) {
      const res = await list(`classification=${encodeURIComponent(bad)}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error.message, 'Unexpected data of search query `classification`.');
    }
  });

  it('an empty value is no filter', async () => {
    const res = await list('classification=');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.items.map((i: { serial: number }) => i.serial),
      newest('telegram.earthquake', 'telegram.volcano', 'telegram.weather'),
    );
  });
});
