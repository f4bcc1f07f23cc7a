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
      'classification',
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
    // Every webhook route in a group of its own, each saying what it does and its scope.
    const webhookPaths = Object.keys(paths).filter((p) => p.startsWith('/v2/webhook'));
    assert.equal(webhookPaths.length, 9, webhookPaths.join(' '));
    for (const path of webhookPaths) {
      for (const [method, op] of Object.entries(
        paths[path] as Record<string, { tags?: string[]; summary?: string; description?: string }>,
      )) {
        assert.deepEqual(op.tags, ['Webhooks'], `${method} ${path}`);
        assert.ok(op.summary, `${method} ${path}: a summary`);
        assert.match(op.description ?? '', /Scope `webhook\.(list|manage)`/, `${method} ${path}`);
      }
    }
  });

  it('/openapi.json documents the authorization server and hides the pages', async () => {
    const r = await getJson(server, '/openapi.json');
    const paths = r.body.paths as Record<string, Record<string, { tags?: string[]; requestBody?: unknown }>>;
    assert.deepEqual(Object.keys(paths['/.well-known/oauth-authorization-server']!), ['get']);
    assert.deepEqual(Object.keys(paths['/account/oauth2/v1/auth']!), ['get']);
    for (const endpoint of ['token', 'revoke', 'introspect']) {
      const ops = paths[`/account/oauth2/v1/${endpoint}`]!;
      assert.deepEqual(Object.keys(ops), ['post'], `${endpoint}: the POST alone (other methods answer 405)`);
      assert.deepEqual(ops.post!.tags, ['OAuth']);
      assert.ok(ops.post!.requestBody, `${endpoint}: its form is described`);
    }
    const pages = Object.keys(paths).filter(
      (p) => p.startsWith('/console') || /^\/account\/(?!oauth2)/.test(p),
    );
    assert.deepEqual(pages, [], 'console pages are not API operations');
    assert.match(r.body.info.description, /POST \/v2\/socket/, 'the real-time flow is described');
  });

  it('/reference is an interactive reference served from this origin alone', async () => {
    const res = await testFetch(`${server.url}/reference`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self';/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    const html = await res.text();
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(sources.length >= 4, html);
    for (const src of sources) {
      assert.doesNotMatch(src, /^(https?:)?\/\//, `${src} is served by this server`);
      const asset = await testFetch(new URL(src, `${server.url}/reference`).toString());
      assert.equal(asset.status, 200, src);
      await asset.arrayBuffer();
    }
  });

  it('/favicon.ico is the site icon', async () => {
    const res = await testFetch(`${server.url}/favicon.ico`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    const png = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
    assert.equal(png.readUInt32BE(16), 32, 'width');
  });
});
