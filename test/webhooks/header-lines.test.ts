// The console's request-header lines read as the API's `headers` object, then checked as the API
// checks it (docs/webhooks.md "Extra request headers").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkWebhookForm, emptyWebhookForm, keepsStoredHeaders } from '../../src/console/webhooks/form.ts';
import { checkExtraHeaders, headerLines, headerNamesAllowed } from '../../src/webhooks/extra-headers.ts';

test('one "Name: value" per line, blank lines skipped, the value after the first colon', () => {
  assert.deepEqual(headerLines('Authorization: Bearer tk_1\r\n\r\nClick: https://x.test:8443/a\n  \n'), {
    Authorization: ' Bearer tk_1',
    Click: ' https://x.test:8443/a',
  });
  assert.deepEqual(headerLines(''), {});
  assert.equal(headerLines('no colon here'), null);
  assert.equal(headerLines(': no name'), null);
  assert.equal(headerLines('X-A: 1\nX-A: 2'), null, 'a name twice');
  const checked = checkExtraHeaders(headerLines('X-A:  spaced value \t'), 'namazu');
  assert.deepEqual(checked, { ok: true, value: [['X-A', 'spaced value']] });
});

test('names the delivery sets are refused in any case; ntfy adds its own and their aliases', () => {
  for (const name of ['content-type', 'HOST', 'User-Agent', 'webhook-id', 'Transfer-Encoding'])
    assert.equal(checkExtraHeaders({ [name]: 'x' }, 'discord').ok, false, name);
  assert.equal(checkExtraHeaders({ 'X-Priority': '5' }, 'ntfy').ok, false);
  assert.equal(checkExtraHeaders({ 'X-Priority': '5' }, 'slack').ok, true);
  assert.equal(headerNamesAllowed(['Click', 'Authorization'], 'ntfy'), true);
  assert.equal(headerNamesAllowed(['Click', 'Tags'], 'ntfy'), false);
  assert.equal(checkExtraHeaders({ 'X-A': 'a\u00a0b' }, 'namazu').ok, false, 'no byte outside ASCII');
  assert.equal(checkExtraHeaders({ 'X-A': 'a\nb' }, 'namazu').ok, false, 'no line break');
});

test("the console's change keeps the stored headers when none are typed, unless the new format sets one of them", () => {
  const values = {
    ...emptyWebhookForm,
    url: 'https://ntfy.example.test/quakes',
    classifications: ['telegram.earthquake'],
  };
  const contracted = new Set(['telegram.earthquake']);
  const check = (v: typeof values, kept: string[] | null) =>
    checkWebhookForm(v, contracted, false, 'en', kept);
  const toNtfy = { ...values, format: 'ntfy' };
  const refused = check(toNtfy, ['Title']);
  assert.equal(refused.ok, false);
  assert.match(!refused.ok ? refused.problems.headers! : '', /sets itself/);
  assert.equal(check({ ...toNtfy, removeHeaders: true }, ['Title']).ok, true, 'removed');
  assert.equal(check(toNtfy, ['Click']).ok, true, 'kept');
  const typed = check({ ...toNtfy, headers: 'Click: https://x.test' }, ['Title']);
  assert.deepEqual(typed.ok && typed.spec.headers, [['Click', 'https://x.test']], 'typed anew');
  assert.equal(keepsStoredHeaders(toNtfy), true);
  assert.equal(keepsStoredHeaders({ ...toNtfy, headers: 'Click: x' }), false);
  assert.equal(keepsStoredHeaders({ ...toNtfy, removeHeaders: true }), false);
});
