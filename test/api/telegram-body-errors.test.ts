/**
 * The body host (`GET {data_url}/v1/:id`) as the production service documents it: every error is
 * plain text, whatever its cause; and the body is gzip only when the client admits gzip.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { fixture } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const XML_FILE = '32-35_01_03_100514_VXSE53.xml';
const xml = readFileSync(fixture('official', XML_FILE));

async function serverWithTelegram() {
  const server = await startTestServer({ listen: false });
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const key = await server.createApiKey(account.id, ['telegram.data', 'telegram.get.earthquake']);
  const outcome = await ingestTelegram(server.ctx, xml, { fileName: XML_FILE, receivedTime: Date.now() });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
  return { server, key, id: outcome.stored.id };
}

/** The response as sent: headers and raw bytes (no content decoding). */
async function get(server: TestServer, path: string, headers: Record<string, string> = {}) {
  const res = await server.app.inject({ url: path, headers });
  return { status: res.statusCode, headers: res.headers, body: res.rawPayload };
}

describe('the body host when something fails on the server', () => {
  it('answers in plain text, as every other error of that host', async () => {
    const { server, key, id } = await serverWithTelegram();
    try {
      assert.equal((await get(server, `/v1/${id}?key=${key}`)).status, 200);
      // The database goes away under the running server (the key's check and the body's read fail).
      await server.ctx.db.close();
      const r = await get(server, `/v1/${id}?key=${key}`);
      const expected: Record<number, string> = {
        500: 'Server error.',
        503: 'The database is unavailable; try again shortly.',
      };
      assert.ok(r.status in expected, `a server-side status, not ${r.status}`);
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(r.body.toString(), expected[r.status]);
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});

describe('Accept-Encoding on the body host', () => {
  let server: TestServer;
  let key: string;
  let id: string;
  before(async () => ({ server, key, id } = await serverWithTelegram()));
  after(() => server.close());

  it('an explicit gzip;q=0 refuses gzip even beside a wildcard (RFC 9110 §12.5.3)', async () => {
    for (const header of ['gzip;q=0, *', '*, gzip;q=0', 'GZIP;Q=0, *;q=0.5']) {
      const r = await get(server, `/v1/${id}?key=${key}`, { 'accept-encoding': header });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-encoding'], undefined, header);
      assert.deepEqual(r.body, xml, header);
    }
  });

  it('gzip admitted by name or by wildcard gets the stored gzip stream', async () => {
    for (const header of ['gzip', '*', 'identity, *;q=0.1']) {
      const r = await get(server, `/v1/${id}?key=${key}`, { 'accept-encoding': header });
      assert.equal(r.headers['content-encoding'], 'gzip', header);
      assert.deepEqual(gunzipSync(r.body), xml, header);
    }
  });
});
