import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Browser, signInThroughForm, startHarness, type Harness } from '../../support/browser.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ listen: false });
});
after(() => h.close());

const signinPage = () => `${h.origin}/account/signin?return_to=%2Faccount`;
const variants = (email: string) => [
  ` ${email}`,
  `\u00a0${email}`,
  `${email}\u3000`,
  `\ufeff${email}`,
  `\u200b${email}`,
  email.toUpperCase(),
  email.replace('u', '\uff55'), // full-width u
];

test('white-space, BOM and full-width variants of an address sign in as the same account', async () => {
  for (const email of variants(h.user.email)) {
    const browser = new Browser();
    const res = await signInThroughForm(browser, signinPage(), email, h.user.password);
    assert.equal(res.status, 303, JSON.stringify(email));
    const account = await browser.get(`${h.origin}/account`);
    assert.ok((await account.text()).includes(h.user.email));
  }
});

test('guesses with variants all count against one account: the 11th from one address is refused', async () => {
  const guesses = [...variants(h.user.email), ...variants(h.user.email)].slice(0, 10);
  for (const email of guesses) {
    const res = await signInThroughForm(new Browser(), signinPage(), email, 'wrong password');
    assert.equal(res.status, 401, JSON.stringify(email));
  }
  const refused = await signInThroughForm(
    new Browser(),
    signinPage(),
    `\u3000${h.user.email}`,
    'wrong password',
  );
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
});
