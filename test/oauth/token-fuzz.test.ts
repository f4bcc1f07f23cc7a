// Generated malformed requests to the token, revocation and introspection endpoints: never a 5xx,
// always an OAuth JSON error (or the documented 200 of revocation/introspection), and no token is
// created or deleted by a request that fails.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { basic, startAuthHarness, type AuthHarness } from '../support/oauth.ts';
import { testFetch } from '../support/fetch.ts';

const names = [
  'grant_type',
  'code',
  'redirect_uri',
  'code_verifier',
  'refresh_token',
  'scope',
  'client_id',
  'client_secret',
  'token',
  'token_type_hint',
];
const values = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'password',
  'ACe.x',
  'ARh.x',
  'ATn.x',
  'telegram.list',
  'https://app.example/cb',
  '',
  '%',
  '%ZZ',
  '\u0000',
  '🐟',
  'a'.repeat(300),
];

describe('token endpoints under generated malformed input', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness({}, undefined, { listen: false });
  });
  after(async () => h.close());

  const tokenCount = async () =>
    Number((await h.server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_tokens'))[0]!.n);

  test('no 5xx, OAuth error bodies, no change on failure', async () => {
    const urls = [h.tokenUrl, h.revokeUrl, h.introspectUrl];
    const pair = fc.tuple(
      fc.constantFrom(...names),
      fc.oneof(fc.constantFrom(...values), fc.string({ maxLength: 40 })),
    );
    const body = fc.oneof(
      fc
        .array(pair, { maxLength: 8 })
        .map((ps) => ps.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
      fc.string({ maxLength: 200 }),
      fc.constant('{"grant_type":"client_credentials"}'),
    );
    const authorization = fc.oneof(
      fc.constant(undefined),
      fc.constant(basic(h.C1.id, h.C1.secret!)),
      fc.constant(basic(h.C1.id, 'CSt.wrong')),
      fc.string({ maxLength: 60 }).map((s) => 'Basic ' + s),
      fc.string({ maxLength: 60 }).map((s) => 'Basic ' + Buffer.from(s).toString('base64')),
    );
    const contentType = fc.constantFrom(
      'application/x-www-form-urlencoded',
      'application/json',
      'text/plain',
      'multipart/form-data',
    );
    const dpop = fc.oneof(fc.constant(undefined), fc.string({ maxLength: 80 }), fc.constant('a.b.c'));

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...urls),
        body,
        authorization,
        contentType,
        dpop,
        async (url, b, auth, type, proof) => {
          // Each run starts in a fresh failure-limit window.
          h.clock.advance(61_000);
          const before = await tokenCount();
          const headers: Record<string, string> = { 'content-type': type };
          if (auth !== undefined) headers.authorization = auth;
          if (proof !== undefined && /^[\x21-\x7e]*$/.test(proof)) headers.dpop = proof;
          const res = await testFetch(url, { method: 'POST', headers, body: b });
          const text = await res.text();
          assert.ok(res.status < 500, `${res.status} ${text}`);
          assert.equal(res.headers.get('cache-control'), 'no-store');
          if (res.status !== 200) {
            const json = JSON.parse(text) as { error: unknown; error_description: unknown };
            assert.equal(typeof json.error, 'string');
            assert.equal(typeof json.error_description, 'string');
            assert.doesNotMatch(json.error_description as string, /[\r\n\t"\\]/);
            assert.equal(await tokenCount(), before);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
