import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Browser, signInThroughForm, startHarness, type Harness } from '../support/browser.ts';
import { testFetch } from '../support/fetch.ts';

let h: Harness;
let key: string;
before(async () => {
  h = await startHarness({ listen: false });
  key = await h.server.createApiKey(h.user.id, [
    'telegram.data',
    'telegram.list',
    'telegram.get.earthquake',
    'socket.start',
  ]);
});
after(() => h.close());

test('a non-ASCII return_to signs in and redirects with an encoded Location, never a 500', async () => {
  const browser = new Browser();
  const signin = `${h.origin}/account/signin?return_to=%2F%E6%97%A5%20x`;
  const posted = await signInThroughForm(browser, signin, h.user.email, h.user.password);
  assert.equal(posted.status, 303);
  assert.equal(posted.headers.get('location'), `${h.origin}/%E6%97%A5%20x`);
  assert.ok(posted.headers.getSetCookie().some((c) => c.startsWith('namazu_session=')));
  // Already signed in: the sign-in page redirects at once.
  const again = await browser.get(signin);
  assert.equal(again.status, 303);
  assert.equal(again.headers.get('location'), `${h.origin}/%E6%97%A5%20x`);
});

test('bad percent-encoding and over-long ids get the surface’s own 404, never a framework error', async () => {
  const body = await testFetch(`${h.origin}/v1/%ff?key=${key}`);
  assert.equal(body.status, 404);
  assert.match(body.headers.get('content-type')!, /^text\/plain/);
  assert.equal(await body.text(), 'Not found.');

  const long = await testFetch(`${h.origin}/v1/${'a'.repeat(300)}?key=${key}`);
  assert.equal(long.status, 404);
  assert.equal(await long.text(), 'Not found.');

  for (const path of [`/v2/telegram/%ff?key=${key}`, `/v2/telegram/${'b'.repeat(300)}?key=${key}`, '/%ff']) {
    const res = await testFetch(h.origin + path);
    assert.equal(res.status, 404, path);
    const json = (await res.json()) as { status: string; error: unknown };
    assert.equal(json.status, 'error');
    assert.deepEqual(json.error, { message: 'Not found.', code: 404 });
  }

  const page = await testFetch(`${h.origin}/account/%ff`);
  assert.equal(page.status, 404);
  assert.match(page.headers.get('content-type')!, /^text\/html/);
  assert.doesNotMatch(await page.text(), /FST_ERR/);

  const token = await testFetch(`${h.origin}/account/oauth2/v1/token%ff`, { method: 'POST' });
  assert.equal(token.status, 404);
  assert.equal(((await token.json()) as { error: string }).error, 'invalid_request');
});

test('malformed bodies and content types get the documented envelope', async () => {
  const attempts: [string, string][] = [
    ['application/json', '{not json'],
    ['application/json', ''],
    ['text/csv', 'a,b'],
  ];
  for (const [type, body] of attempts) {
    const res = await testFetch(`${h.origin}/v2/socket?key=${key}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    assert.ok(res.status >= 400 && res.status < 500, `${type} ${res.status}`);
    const text = await res.text();
    assert.doesNotMatch(text, /FST_|statusCode/);
    const json = JSON.parse(text) as { status: string; error: { code: number } };
    assert.equal(json.status, 'error');
    assert.equal(json.error.code, res.status);
  }
});
