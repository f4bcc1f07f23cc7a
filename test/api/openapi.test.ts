import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { getJson } from '../support/data-api.ts';
import { testFetch } from '../support/fetch.ts';

describe('OpenAPI document and reference page', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ listen: false });
  });
  after(() => server.close());

  it('/openapi.json describes every data API route with its parameters', async () => {
    const r = await getJson(server, '/openapi.json');
    assert.equal(r.status, 200);
    assert.equal(r.body.openapi, '3.0.3');
    const paths = r.body.paths as Record<string, Record<string, { parameters?: { name: string }[] }>>;
    for (const [path, method] of [
      ['/v2/telegram', 'get'],
      ['/telegram/v1/list', 'get'],
      ['/v1/{id}', 'get'],
      ['/v2/contract', 'get'],
      ['/admin/v1/telegrams', 'post'],
    ] as const) {
      assert.ok(paths[path]?.[method], `${method} ${path}`);
    }
    // `key` is documented once, as the apiKeyQuery security scheme.
    assert.deepEqual(r.body.components.securitySchemes.apiKeyQuery, {
      type: 'apiKey',
      in: 'query',
      name: 'key',
    });
    const names = (path: string) =>
      paths[path]!.get!.parameters!.map((p) => p.name)
        .filter((n) => n !== 'key')
        .sort();
    const v2 = names('/v2/telegram');
    // `type[]` is the official SDK's form of an exact type list.
    assert.deepEqual(v2, [
      'cursorToken',
      'datetime',
      'formatMode',
      'limit',
      'test',
      'type',
      'type[]',
      'xmlReport',
    ]);
    const v1 = names('/telegram/v1/list');
    assert.deepEqual(v1, ['limit', 'newCatch', 'nextToken', 'test', 'type', 'type[]', 'xml']);
    assert.equal(paths['/openapi.json'], undefined, 'the document itself is not listed');
  });

  it('/reference renders the same routes as HTML', async () => {
    const res = await testFetch(`${server.url}/reference`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    for (const route of [
      'GET /v2/telegram',
      'GET /telegram/v1/list',
      'GET /v1/{id}',
      'GET /v2/contract',
      'POST /admin/v1/telegrams',
    ]) {
      assert.ok(html.includes(route), route);
    }
    assert.ok(html.includes('<code>cursorToken</code>'));
  });
});
