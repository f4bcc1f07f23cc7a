// A request that repeats `Authorization` (docs/security.md "Credentials"): Node keeps the first of
// several, where a proxy in front may have checked another, so every surface that reads the header
// refuses such a request, even when each copy alone would be accepted.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { basic, startAuthHarness, type AuthHarness } from '../support/oauth.ts';

/** One request over a real socket; an array header value goes out as that many header lines. */
function send(
  url: string,
  authorization: string | string[],
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.setHeader('authorization', authorization);
    req.on('error', reject);
    req.end(body);
  });
}

describe('two Authorization headers', () => {
  let h: AuthHarness;
  let key: string;
  before(async () => {
    h = await startAuthHarness({ metricsToken: 'metrics-secret-1' });
    key = await h.server.createApiKey(h.account.id, ['telegram.list']);
  });
  after(async () => h.close());

  test('the data API refuses them with 401 invalid_token, whatever each one holds', async () => {
    const list = `${h.origin}/v2/telegram?limit=1`;
    const valid = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    assert.equal((await send(list, valid)).status, 200);
    for (const pair of [
      [valid, valid],
      [valid, 'Bearer not-a-token'],
      ['Bearer not-a-token', valid],
    ]) {
      const res = await send(list, pair);
      assert.equal(res.status, 401, pair.join(' | '));
      assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
      assert.match(String(res.headers['www-authenticate']), /more than one Authorization header/);
      assert.equal(JSON.parse(res.text).error.code, 401);
    }
  });

  test('the token endpoint refuses them with invalid_request', async () => {
    const form = 'grant_type=client_credentials&scope=telegram.list';
    const valid = basic(h.CC.id, h.CC.secret!);
    assert.equal((await send(h.tokenUrl, valid, form)).status, 200);
    const res = await send(h.tokenUrl, [valid, valid], form);
    assert.equal(res.status, 400);
    assert.deepEqual(JSON.parse(res.text), {
      error: 'invalid_request',
      error_description: 'more than one Authorization header',
    });
    // Introspection and revocation read the client the same way.
    for (const url of [h.introspectUrl, h.revokeUrl]) {
      const refused = await send(url, [valid, valid], 'token=anything');
      assert.equal(refused.status, 400, url);
      assert.equal(JSON.parse(refused.text).error, 'invalid_request');
    }
  });

  test('/metrics refuses them like a wrong token', async () => {
    const metrics = `${h.origin}/metrics`;
    assert.equal((await send(metrics, 'Bearer metrics-secret-1')).status, 200);
    const res = await send(metrics, ['Bearer metrics-secret-1', 'Bearer metrics-secret-1']);
    assert.equal(res.status, 401);
  });
});
