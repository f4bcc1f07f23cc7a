import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/server.ts';
import { earthquakeListServer, getJson } from '../support/data-api.ts';

/**
 * `xmlReport` of GET /v2/telegram items appears when the item's format is `xml` and the query asks
 * for it (service.md "Telegram item, list v2"): a JSON conversion listed by `formatMode=json`
 * carries its `schema`, never `xmlReport`.
 */
describe('GET /v2/telegram xmlReport by format', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    ({ server, key } = await earthquakeListServer());
  });
  after(() => server.close());

  it('formatMode=json&xmlReport=true: JSON items have schema and no xmlReport', async () => {
    const res = await getJson(server, `/v2/telegram?key=${key}&formatMode=json&xmlReport=true&limit=100`);
    assert.equal(res.status, 200);
    const json = res.body.items.filter((i: { format: string }) => i.format === 'json');
    assert.ok(json.length > 0);
    for (const item of json) {
      assert.equal(typeof item.schema?.type, 'string');
      assert.equal('xmlReport' in item, false, item.id);
    }
  });

  it('formatMode=raw&xmlReport=true: XML items keep their xmlReport', async () => {
    const res = await getJson(server, `/v2/telegram?key=${key}&xmlReport=true&limit=100`);
    assert.equal(res.status, 200);
    const xml = res.body.items.filter((i: { format: string }) => i.format === 'xml');
    assert.ok(xml.length > 0);
    for (const item of xml) assert.equal(typeof item.xmlReport.control.title, 'string');
  });
});
