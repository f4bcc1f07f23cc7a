import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorResponse, successResponse } from '../../src/oauth/authorize-response.ts';

const iss = 'https://auth.example';

test('query mode appends to an existing query and carries state and iss', () => {
  const r = successResponse(
    { redirectUri: 'https://app.example/cb?a=1', mode: 'query', state: 'a&b=c/+é' },
    iss,
    'ACe.x',
  );
  assert.equal(r.kind, 'redirect');
  if (r.kind !== 'redirect') return;
  const url = new URL(r.location);
  assert.deepEqual([...url.searchParams.keys()], ['a', 'code', 'state', 'iss']);
  assert.equal(url.searchParams.get('a'), '1');
  assert.equal(url.searchParams.get('code'), 'ACe.x');
  assert.equal(url.searchParams.get('state'), 'a&b=c/+é');
  assert.equal(url.searchParams.get('iss'), iss);
});

test('fragment mode puts the response after #; an invalid state is left out', () => {
  const r = errorResponse(
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
  assert.equal(params.get('error_description'), 'No.');
  assert.equal(params.has('state'), false);
  assert.equal(params.get('iss'), iss);
});

test('form_post mode gives the fields to POST to the redirect URI', () => {
  const r = successResponse(
    { redirectUri: 'com.example.app:/cb', mode: 'form_post', state: 's' },
    iss,
    'ACe.x',
  );
  assert.deepEqual(r, {
    kind: 'form_post',
    action: 'com.example.app:/cb',
    fields: [
      ['code', 'ACe.x'],
      ['state', 's'],
      ['iss', iss],
    ],
  });
});
