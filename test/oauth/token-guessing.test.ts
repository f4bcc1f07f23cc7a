import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FAILURE_LIMITS } from '../../src/oauth/token-routes.ts';
import { basic, basicPlain, postForm, startAuthHarness, type AuthHarness } from '../support/oauth.ts';

let h: AuthHarness;
before(async () => {
  h = await startAuthHarness({}, undefined, { listen: false });
});
after(() => h.close());

const grant = { grant_type: 'client_credentials', scope: 'telegram.list' };

test('secret guesses for one client count under its decoded id, however it is spelled', async () => {
  const id = h.CC.id;
  const spellings = [
    (s: string) => ({ authorization: basic(id, s) }),
    (s: string) => ({ authorization: basicPlain(id, s) }),
    // Appendix B: %XX in the Basic user name decodes to the same id.
    (s: string) => ({ authorization: basicPlain(id.replace('.', '%2E'), s) }),
  ];
  for (let i = 0; i < FAILURE_LIMITS.perIpAndClient; i++) {
    const headers = spellings[i % spellings.length]!(`guess-${i}`);
    const r = await postForm(h.tokenUrl, grant, headers);
    assert.equal(r.status, 401, `guess ${i}: ${r.text}`);
  }
  const blocked = await postForm(h.tokenUrl, grant, { authorization: basic(id, h.CC.secret!) });
  assert.equal(blocked.status, 429);
  assert.ok(Number(blocked.headers.get('retry-after')) > 0);
});

test('the description never tells whether a client id exists', async () => {
  const unknown = await postForm(h.tokenUrl, grant, { authorization: basic('CId.nobody', 'x') });
  const publicWithSecret = await postForm(h.tokenUrl, grant, { authorization: basic(h.P1.id, 'x') });
  const missingSecret = await postForm(h.tokenUrl, { ...grant, client_id: h.C1.id });
  for (const r of [unknown, publicWithSecret, missingSecret]) {
    assert.equal(r.status, 401);
    assert.deepEqual(r.json, { error: 'invalid_client', error_description: 'client authentication failed' });
  }
});
