import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { earthquakeListServer, getJson } from '../support/data-api.ts';
import type { TestServer } from '../support/server.ts';

// Kept answers of GET /v2/telegram are keyed by the parsed query (docs/data-api.md "Pages kept in
// memory"): parameters the list does not know change nothing, and a query that differs from a kept
// one only where a field is empty rather than absent is answered as itself.
describe('GET /v2/telegram, kept answers', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    ({ server, key } = await earthquakeListServer(6));
  });
  after(() => server.close());

  const list = (query: string) => getJson(server, `/v2/telegram?key=${key}&${query}`);
  const withoutEnvelope = ({ responseId: _id, responseTime: _time, ...rest }: Record<string, unknown>) =>
    rest;

  it('answers a query with unknown parameters as the same query without them', async () => {
    const plain = await list('limit=3');
    assert.equal(plain.status, 200);
    assert.equal(plain.body.items.length, 3);
    for (const extra of ['u=1', 'u=2', 'appVersion=1.2.3&u=3', 'limit_=9']) {
      const answer = await list(`limit=3&${extra}`);
      assert.equal(answer.status, 200, extra);
      assert.deepEqual(withoutEnvelope(answer.body), withoutEnvelope(plain.body), extra);
    }
  });

  it('a default written out is the same answer as the default left out', async () => {
    const left = await list('u=0');
    const written = await list('limit=20&formatMode=raw&xmlReport=false&test=no');
    assert.equal(written.status, 200);
    assert.deepEqual(withoutEnvelope(written.body), withoutEnvelope(left.body));
  });

  it('an empty cursorToken is refused even when the query without one is kept', async () => {
    assert.equal((await list('limit=2')).status, 200);
    assert.equal((await list('limit=2')).status, 200);
    const empty = await list('limit=2&cursorToken=');
    assert.equal(empty.status, 400);
    assert.equal(empty.body.status, 'error');
  });

  it('a cursor and a reception range that spell the same characters are two queries', async () => {
    // `datetime` goes into the key with its length: shifting characters between it and the cursor
    // cannot make another kept answer's key.
    const first = await list('limit=1');
    const token = first.body.nextToken as string;
    assert.equal((await list(`limit=1&cursorToken=${token}`)).status, 200);
    const shifted = await list(`limit=1&datetime=${token.slice(0, 1)}&cursorToken=${token.slice(1)}`);
    assert.equal(shifted.status, 400);
  });
});
