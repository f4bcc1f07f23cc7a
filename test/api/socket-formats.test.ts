import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { getJson } from '../support/data-api.ts';

/**
 * `formats` of POST /v2/socket, the production reference's (experimental) alternative to
 * `formatMode`: `xml`, `json`, `a/n`, `binary`, never `xml` with `json`, never beside `formatMode`,
 * each misuse with its own message. A client asking for `json` must not be sent XML.
 */
describe('POST /v2/socket formats', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer({ listen: false });
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'websocket.plus2', 'websocket.plus5'],
    });
    key = await server.createApiKey(account.id, ['socket.start', 'telegram.get.earthquake']);
  });
  after(() => server.close());

  const start = (body: Record<string, unknown>) =>
    getJson(server, `/v2/socket?key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ classifications: ['telegram.earthquake'], ...body }),
    });

  it('a list with json starts a session of JSON conversions', async () => {
    for (const formats of [['json'], ['json', 'a/n', 'binary'], ['a/n', 'json']]) {
      const res = await start({ formats });
      assert.equal(res.status, 200, JSON.stringify(formats));
      assert.deepEqual(res.body.formats, ['a/n', 'binary', 'json'], JSON.stringify(formats));
    }
  });

  it('a list without json starts a raw session', async () => {
    for (const formats of [['xml'], ['xml', 'a/n', 'binary'], ['binary']]) {
      const res = await start({ formats });
      assert.equal(res.status, 200, JSON.stringify(formats));
      assert.deepEqual(res.body.formats, ['xml', 'a/n', 'binary'], JSON.stringify(formats));
    }
  });

  it('refuses what the reference refuses, with its messages', async () => {
    const cases: [unknown, string][] = [
      ['json', 'The `formats` must be an array and contain at least one element.'],
      [[], 'The `formats` must be an array and contain at least one element.'],
      [['xml', 'json'], 'The `formats` cannot contain both xml and json.'],
      [['yaml'], 'The `formats` are incorrect.'],
      [['json', 7], 'The `formats` are incorrect.'],
    ];
    for (const [formats, message] of cases) {
      const res = await start({ formats });
      assert.equal(res.status, 400, JSON.stringify(formats));
      assert.equal(res.body.status, 'error');
      assert.equal(res.body.error.message, message, JSON.stringify(formats));
    }
  });

  it('formats and formatMode together are refused', async () => {
    const res = await start({ formats: ['json'], formatMode: 'json' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.message, 'The `formats` cannot be used with `formatMode`.');
  });

  it('null formats is no formats', async () => {
    const res = await start({ formats: null, formatMode: 'json' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.formats, ['a/n', 'binary', 'json']);
  });
});
