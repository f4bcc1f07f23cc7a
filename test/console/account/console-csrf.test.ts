// CSRF on the account page's forms (docs/security.md "Standing probes"): a request without the
// token, or with a token taken from another session (the attacker's own), changes nothing. The
// sign-in and consent forms are probed in test/console/signin/signin.test.ts and
// test/oauth/authorize-conformance.test.ts (A22).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  type Browser,
  parseForms,
  signedInBrowser,
  startHarness,
  type Harness,
} from '../../support/browser.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ listen: false });
});
after(() => h.close());

const signedIn = () => signedInBrowser(h.origin, h.user.email, h.user.password);

async function accountForms(browser: Browser) {
  const res = await browser.get(`${h.origin}/account`);
  assert.equal(res.status, 200);
  return parseForms(await res.text());
}

test('account forms refuse a missing token and a token of another session', async () => {
  const victim = await signedIn();
  const consentUrl = new URL(`${h.origin}/account/oauth2/v1/auth`);
  consentUrl.search = new URLSearchParams({
    client_id: h.clients.C1.client.clientId,
    response_type: 'code',
    scope: 'telegram.list',
    state: 's',
  }).toString();
  const consent = await victim.get(consentUrl.href);
  const approved = await victim.submit(await consent.text(), '/auth/consent', [['decision', 'approve']]);
  assert.equal(approved.status, 303);
  const grants = () =>
    h.server.ctx.db.query('SELECT id FROM oauth_grants WHERE account_id = $1', [h.user.id]);
  const grantsBefore = await grants();
  assert.equal(grantsBefore.length, 1);

  const forms = await accountForms(victim);
  const revoke = forms.find((f) => /\/authorizations\/\d+\/revoke$/.test(f.action))!;
  const signout = forms.find((f) => f.action.endsWith('/account/signout'))!;
  // The attacker signs in too (same account: a token of its own session is as valid as can be).
  const attacker = await signedIn();
  const foreignToken = (await accountForms(attacker))
    .find((f) => f.action.endsWith('/account/signout'))!
    .fields.find(([k]) => k === 'csrf')![1];

  for (const form of [revoke, signout]) {
    const others = form.fields.filter(([k]) => k !== 'csrf');
    for (const fields of [others, [...others, ['csrf', foreignToken]] as [string, string][]]) {
      const res = await victim.post(form.action, fields);
      assert.equal(res.status, 403, form.action);
    }
  }
  assert.deepEqual(await grants(), grantsBefore, 'nothing revoked');
  assert.equal((await victim.get(`${h.origin}/account`)).status, 200, 'still signed in');
  // The victim's own tokens work: the refusals above were for the tokens, not the forms.
  assert.equal((await victim.post(revoke.action, revoke.fields)).status, 303);
  assert.deepEqual(await grants(), []);
});
