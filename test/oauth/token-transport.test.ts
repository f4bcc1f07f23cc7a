// Token endpoint transport and client authentication (docs/oauth.md "Token endpoint", "Client
// authentication"), cases H1–H7 and CA1–CA12.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import {
  basic,
  basicPlain,
  postForm,
  serverMeta,
  startAuthHarness,
  type AuthHarness,
} from '../support/oauth.ts';

const insecure = { [oauth.allowInsecureRequests]: true };
const cc = { grant_type: 'client_credentials', scope: 'telegram.list' };

/** error_description of RFC 6749 §5.2: no CR, LF, TAB, `"` or `\`. */
function assertErrorShape(json: Record<string, unknown> | null, error: string) {
  assert.ok(json, 'JSON body');
  assert.equal(json.error, error);
  assert.equal(typeof json.error_description, 'string');
  assert.doesNotMatch(json.error_description as string, /[\r\n\t"\\]/);
  assert.deepEqual(Object.keys(json).sort(), ['error', 'error_description']);
}

describe('token endpoint transport and client authentication', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness();
  });
  after(async () => h.close());

  test('H1 GET → 405', async () => {
    const res = await fetch(h.tokenUrl);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
    assertErrorShape((await res.json()) as Record<string, unknown>, 'invalid_request');
  });

  test('H2 JSON body → 400 invalid_request', async () => {
    const res = await fetch(h.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic(h.C1.id, h.C1.secret!) },
      body: JSON.stringify(cc),
    });
    assert.equal(res.status, 400);
    assertErrorShape((await res.json()) as Record<string, unknown>, 'invalid_request');
    const none = await fetch(h.tokenUrl, { method: 'POST', body: 'grant_type=client_credentials' });
    assert.equal(none.status, 400);
    // A form over the 16 KiB limit is refused before it is parsed.
    const big = await postForm(
      h.tokenUrl,
      { ...cc, pad: 'x'.repeat(20_000) },
      { authorization: basic(h.C1.id, h.C1.secret!) },
    );
    assert.equal(big.status, 413);
    assertErrorShape(big.json, 'invalid_request');
  });

  test('H3 success headers: JSON, Cache-Control no-store, Pragma no-cache', async () => {
    const r = await postForm(h.tokenUrl, cc, { authorization: basic(h.C1.id, h.C1.secret!) });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^application\/json/);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal(r.headers.get('pragma'), 'no-cache');
  });

  test('H4 error body shape and headers', async () => {
    const r = await postForm(
      h.tokenUrl,
      { grant_type: 'client_credentials', scope: 'nope"\\\r\n\t' },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    assert.equal(r.status, 400);
    assertErrorShape(r.json, 'invalid_scope');
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal(r.headers.get('pragma'), 'no-cache');
    assert.match(r.headers.get('content-type')!, /^application\/json/);
  });

  test('H5 repeated grant_type → invalid_request', async () => {
    const r = await postForm(
      h.tokenUrl,
      { ...cc, grant_type: ['client_credentials', 'client_credentials'] },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    assert.equal(r.status, 400);
    assertErrorShape(r.json, 'invalid_request');
  });

  test('H6 missing grant_type → invalid_request', async () => {
    const r = await postForm(
      h.tokenUrl,
      { scope: 'telegram.list' },
      { authorization: basic(h.C1.id, h.C1.secret!) },
    );
    assert.equal(r.status, 400);
    assertErrorShape(r.json, 'invalid_request');
  });

  test('H7 password or unknown grant → unsupported_grant_type', async () => {
    for (const grant_type of ['password', 'urn:ietf:params:oauth:grant-type:device_code', 'implicit', 'x']) {
      const r = await postForm(
        h.tokenUrl,
        { grant_type, username: 'a', password: 'b' },
        {
          authorization: basic(h.C1.id, h.C1.secret!),
        },
      );
      assert.equal(r.status, 400, grant_type);
      assertErrorShape(r.json, 'unsupported_grant_type');
    }
  });

  test('CA1 Basic without Appendix B encoding; client_secret_post', async () => {
    const r = await postForm(h.tokenUrl, cc, { authorization: basicPlain(h.C1.id, h.C1.secret!) });
    assert.equal(r.status, 200);
    const post = await postForm(h.tokenUrl, { ...cc, client_id: h.C1.id, client_secret: h.C1.secret! });
    assert.equal(post.status, 200);
  });

  test('CA2 Basic with Appendix B encoding (oauth4webapi ClientSecretBasic), also CId%2E… form', async () => {
    const as = serverMeta(h);
    const res = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: h.C1.id },
      oauth.ClientSecretBasic(h.C1.secret!),
      { scope: 'telegram.list' },
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, { client_id: h.C1.id }, res);
    assert.equal(tokens.token_type, 'bearer');
    assert.match(tokens.access_token, /^ATn\./);
    // Every character percent-encoded, as a strict Appendix B encoder may do.
    const pct = (s: string) =>
      [...Buffer.from(s)].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');
    const header = 'Basic ' + Buffer.from(`${pct(h.C1.id)}:${pct(h.C1.secret!)}`).toString('base64');
    assert.equal((await postForm(h.tokenUrl, cc, { authorization: header })).status, 200);
  });

  test('CA3 wrong secret (Basic) → 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const r = await postForm(h.tokenUrl, cc, { authorization: basic(h.C1.id, h.C2.secret!) });
    assert.equal(r.status, 401);
    assertErrorShape(r.json, 'invalid_client');
    assert.match(r.headers.get('www-authenticate')!, /^Basic /);
  });

  test('CA4 wrong secret (post) → 401', async () => {
    const r = await postForm(h.tokenUrl, { ...cc, client_id: h.C1.id, client_secret: h.C1.secret! + 'x' });
    assert.equal(r.status, 401);
    assertErrorShape(r.json, 'invalid_client');
    assert.equal(r.headers.get('www-authenticate'), null);
  });

  test('CA5 unknown client → 401', async () => {
    const r = await postForm(h.tokenUrl, cc, { authorization: basic('CId.unknown', 'CSt.whatever') });
    assert.equal(r.status, 401);
    assertErrorShape(r.json, 'invalid_client');
    const post = await postForm(h.tokenUrl, { ...cc, client_id: 'CId.unknown', client_secret: 'CSt.x' });
    assert.equal(post.status, 401);
  });

  test('CA6 Basic and body secret → 400 invalid_request', async () => {
    const r = await postForm(
      h.tokenUrl,
      { ...cc, client_secret: h.C1.secret! },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    assert.equal(r.status, 400);
    assertErrorShape(r.json, 'invalid_request');
  });

  test('CA7 Basic id ≠ body client_id → 400; equal ids are fine', async () => {
    const r = await postForm(
      h.tokenUrl,
      { ...cc, client_id: h.C2.id },
      { authorization: basic(h.C1.id, h.C1.secret!) },
    );
    assert.equal(r.status, 400);
    assertErrorShape(r.json, 'invalid_request');
    const same = await postForm(
      h.tokenUrl,
      { ...cc, client_id: h.C1.id },
      { authorization: basic(h.C1.id, h.C1.secret!) },
    );
    assert.equal(same.status, 200);
  });

  test('CA8 confidential client without secret → 401', async () => {
    const r = await postForm(h.tokenUrl, { ...cc, client_id: h.C1.id });
    assert.equal(r.status, 401);
    assertErrorShape(r.json, 'invalid_client');
  });

  test('CA9 public client with a secret → 401', async () => {
    const { code, verifier } = await h.code(h.P1);
    const form = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier!,
      redirect_uri: 'http://127.0.0.1/callback',
    };
    const post = await postForm(h.tokenUrl, { ...form, client_id: h.P1.id, client_secret: 'CSt.anything' });
    assert.equal(post.status, 401);
    assertErrorShape(post.json, 'invalid_client');
    const viaBasic = await postForm(h.tokenUrl, form, { authorization: basic(h.P1.id, 'CSt.anything') });
    assert.equal(viaBasic.status, 401);
    assert.match(viaBasic.headers.get('www-authenticate')!, /^Basic /);
    // The code was not spent by the failed attempts.
    const ok = await postForm(h.tokenUrl, { ...form, client_id: h.P1.id });
    assert.equal(ok.status, 200, ok.text);
  });

  test('CA10 malformed Basic → 400 invalid_request', async () => {
    for (const header of [
      'Basic !!!not-base64!!!',
      'Basic ' + Buffer.from('no-colon').toString('base64'),
      'Basic ' + Buffer.from(':secret-without-id').toString('base64'),
      'Basic ' + Buffer.from(`${h.C1.id}%ZZ:x`).toString('base64'),
      'Basic',
      'Bearer ATn.something',
    ]) {
      const r = await postForm(h.tokenUrl, cc, { authorization: header });
      assert.equal(r.status, 400, header);
      assertErrorShape(r.json, 'invalid_request');
    }
  });

  test('CA11 repeated failures → 429 with Retry-After, for that IP and client only', async () => {
    const victim = await h.addClient({ type: 'confidential', grants: ['client_credentials'] });
    let last;
    for (let i = 0; i < 40; i++) {
      last = await postForm(h.tokenUrl, { ...cc, client_id: victim.id, client_secret: 'CSt.wrong' });
      if (last.status === 429) break;
      assert.equal(last.status, 401);
    }
    assert.equal(last!.status, 429);
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
    assert.equal(last!.json!.error, 'invalid_request');
    // Even the right secret is refused while blocked; other clients are not affected.
    const blocked = await postForm(h.tokenUrl, {
      ...cc,
      client_id: victim.id,
      client_secret: victim.secret!,
    });
    assert.equal(blocked.status, 429);
    assert.equal(
      (await postForm(h.tokenUrl, cc, { authorization: basic(h.C2.id, h.C2.secret!) })).status,
      200,
    );
    // The window passes.
    h.clock.advance(61_000);
    const again = await postForm(h.tokenUrl, { ...cc, client_id: victim.id, client_secret: victim.secret! });
    assert.equal(again.status, 200);
  });

  test('CA12 the database holds no plaintext secret, code, token or API key', async () => {
    const { code } = await h.code(h.C1);
    const issued = await postForm(
      h.tokenUrl,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/cb' },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    assert.equal(issued.status, 200);
    const secrets = [
      h.C1.secret!,
      code,
      issued.json!.access_token as string,
      issued.json!.refresh_token as string,
    ];
    const db = h.server.ctx.db;
    const tables = [
      'oauth_clients',
      'oauth_codes',
      'oauth_tokens',
      'oauth_grants',
      'api_keys',
      'dpop_proofs',
    ];
    for (const table of tables) {
      const dump = JSON.stringify(await db.query(`SELECT * FROM ${table}`));
      for (const s of secrets) assert.ok(!dump.includes(s), `${table} holds a plaintext secret`);
      assert.doesNotMatch(dump, /(CSt|ACe|ATn|ARh|AKe)\./, table);
    }
  });
});
