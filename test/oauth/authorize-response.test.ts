import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { errorReply, successReply } from '../../src/oauth/authorize-response.ts';

const iss = 'https://auth.example';

test('query mode appends to an existing query and carries state and iss', () => {
  const r = successReply(
    { redirectUri: 'https://app.example/cb?a=1', mode: 'query', state: 'a&b=c/+é' },
    iss,
    'ACe.x',
  );
  assert.equal(r.kind, 'redirect');
  if (r.kind !== 'redirect') return;
  const url = new URL(r.location);
  assert.equal(url.searchParams.get('a'), '1');
  assert.equal(url.searchParams.get('code'), 'ACe.x');
  assert.equal(url.searchParams.get('state'), 'a&b=c/+é');
  assert.equal(url.searchParams.get('iss'), iss);
  assert.equal(r.headers['referrer-policy'], 'no-referrer');
});

test('fragment mode puts the response after #', () => {
  const r = errorReply(
    { redirectUri: 'https://app.example/cb', mode: 'fragment', state: null },
    iss,
    'access_denied',
    'No.',
  );
  assert.equal(r.kind, 'redirect');
  if (r.kind !== 'redirect') return;
  const url = new URL(r.location);
  assert.equal(url.search, '');
  const params = new URLSearchParams(url.hash.slice(1));
  assert.equal(params.get('error'), 'access_denied');
  assert.equal(params.has('state'), false);
  assert.equal(params.get('iss'), iss);
});

test('form_post renders an escaped auto-submitting form allowed by a script hash', () => {
  const state = '"><script>alert(1)</script>';
  const r = successReply({ redirectUri: 'https://app.example/cb', mode: 'form_post', state }, iss, 'ACe.x');
  assert.equal(r.kind, 'page');
  if (r.kind !== 'page') return;
  assert.ok(!r.html.includes('<script>alert'));
  assert.ok(r.html.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'));
  const script = /<script>([^<]*)<\/script>/.exec(r.html)?.[1];
  assert.ok(script);
  const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
  const csp = r.headers['content-security-policy']!;
  assert.ok(csp.includes(`script-src ${hash}`));
  assert.ok(csp.includes("form-action 'self' https://app.example"));
  assert.ok(!csp.includes('unsafe-inline'));
});
