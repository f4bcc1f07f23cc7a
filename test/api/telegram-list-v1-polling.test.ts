/**
 * The deprecated `GET /telegram/v1/list` against the production service's reference
 * (telegram.v1/list.md) and docs/data-api.md: the item's fields, `xmlData` only with `xml=true`,
 * newest first, and polling by `newCatch` that loses no telegram when more than `limit` arrive.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  earthquakeFixtures,
  earthquakeListServer,
  getJson,
  ingestFixtures,
  pollUntilEmpty,
  V1_DATA_FIELDS,
  V1_ITEM_FIELDS,
} from '../support/data-api.ts';
import { auth } from '../support/processes.ts';
import type { TestServer } from '../support/server.ts';

interface V1Item {
  classification: string;
  key: string;
  data: { type: string; sendNumber: number; xml: boolean };
  url: string;
  xmlData?: unknown;
}

describe('GET /telegram/v1/list', () => {
  let server: TestServer;
  let key: string;
  let first: number[];
  const list = async (query: string) => {
    const r = await getJson(server, `/telegram/v1/list?${query}`, { headers: auth(key) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { items: V1Item[]; newCatch: number; nextToken?: string };
  };

  before(async () => {
    ({ server, key, serials: first } = await earthquakeListServer(3));
  });
  after(() => server.close());

  it('answers the documented fields, newest first, xmlData only with xml=true', async () => {
    const plain = await list('');
    assert.deepEqual(
      plain.items.map((i) => i.data.sendNumber),
      [...first].reverse(),
    );
    assert.equal(plain.newCatch, Math.max(...first));
    for (const item of plain.items) {
      assert.deepEqual(Object.keys(item).sort(), V1_ITEM_FIELDS);
      assert.deepEqual(Object.keys(item.data).sort(), V1_DATA_FIELDS);
      assert.match(item.key, /^[0-9a-f]{96}$/);
      assert.ok(item.url.endsWith(`/v1/${item.key}`));
    }
    const withXml = await list('xml=true');
    for (const item of withXml.items) assert.equal(item.xmlData !== undefined, item.data.xml);
  });

  it('polling by newCatch gets every newer telegram, oldest first across polls, when a burst exceeds limit', async () => {
    const { newCatch: start } = await list('limit=1');
    const burst = await ingestFixtures(server, earthquakeFixtures().slice(3, 10));
    assert.ok(burst.length > 2);
    const polled = await pollUntilEmpty(start, burst.length, async (newCatch) => {
      const page = await list(`newCatch=${newCatch}&limit=2`);
      const serials = page.items.map((i) => i.data.sendNumber);
      assert.deepEqual(
        serials,
        [...serials].sort((a, b) => b - a),
        'each page newest first',
      );
      return { serials, next: page.newCatch };
    });
    assert.deepEqual(polled.serials, burst, 'every telegram of the burst once, in the order received');
    assert.equal(polled.cursor, burst.at(-1));
  });
});
