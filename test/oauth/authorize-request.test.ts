import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OAuthClient } from '../../src/issuer/clients.ts';
import { validateAuthorizationRequest } from '../../src/oauth/authorize-request.ts';
import { parseUrlEncoded } from '../../src/http/form.ts';

const client: OAuthClient = {
  id: 1,
  clientId: 'CId.' + 'p'.repeat(43),
  accountId: 1,
  name: 'Native',
  type: 'public',
  redirectUris: ['http://127.0.0.1/callback'],
  grants: ['authorization_code', 'refresh_token'],
  scopes: ['telegram.list', 'telegram.data'],
  contact: null,
  appUrl: null,
  termsUrl: null,
  privacyUrl: null,
  refreshRotation: 'default',
};
const lookup = async (id: string) => (id === client.clientId ? client : null);
const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

function query(extra: Record<string, string | null> = {}): string {
  const base: Record<string, string | null> = {
    client_id: client.clientId,
    redirect_uri: 'http://127.0.0.1:5000/callback',
    response_type: 'code',
    scope: 'telegram.list',
    state: 'xyz',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
  return new URLSearchParams(
    Object.entries(base).filter((e): e is [string, string] => e[1] !== null),
  ).toString();
}

async function outcome(raw: string) {
  const params = parseUrlEncoded(raw);
  assert.ok(params);
  return validateAuthorizationRequest(params, lookup);
}

test('parseUrlEncoded is strict about encoding and keeps repeated values', () => {
  assert.equal(parseUrlEncoded('state=%E0%A4%A'), null);
  assert.equal(parseUrlEncoded('state=%FF'), null);
  assert.deepEqual(parseUrlEncoded('a=1&a=2&b=&c=x+y%2B')?.get('a'), ['1', '2']);
  assert.equal(parseUrlEncoded('b=')?.has('b'), false);
  assert.equal(parseUrlEncoded('c=x+y%2B')?.get('c')?.[0], 'x y+');
  assert.equal(parseUrlEncoded(Array.from({ length: 51 }, (_, i) => `p${i}=1`).join('&')), null);
});

test('a valid request', async () => {
  const o = await outcome(query({ dpop_jkt: 'a'.repeat(43) }));
  assert.equal(o.kind, 'valid');
  if (o.kind !== 'valid') return;
  assert.deepEqual(o.delivery, {
    redirectUri: 'http://127.0.0.1:5000/callback',
    mode: 'query',
    state: 'xyz',
  });
  assert.equal(o.request.codeChallengeMethod, 'S256');
  assert.equal(o.request.dpopJkt, 'a'.repeat(43));
  assert.equal(o.request.requestedRedirectUri, 'http://127.0.0.1:5000/callback');
});

test('challenge without method means plain', async () => {
  const o = await outcome(query({ code_challenge_method: null }));
  assert.equal(o.kind === 'valid' && o.request.codeChallengeMethod, 'plain');
});

test('errors before the redirect URI is trusted are pages', async () => {
  assert.equal((await outcome(query({ client_id: null }))).kind, 'page_error');
  assert.equal((await outcome(query({ client_id: 'CId.nope' }))).kind, 'page_error');
  assert.equal((await outcome(query({ redirect_uri: 'https://evil.example/' }))).kind, 'page_error');
  assert.equal((await outcome(query() + '&client_id=' + client.clientId)).kind, 'page_error');
  assert.equal((await outcome(query() + '&redirect_uri=x')).kind, 'page_error');
});

const cases: [string, Record<string, string | null> | string, string][] = [
  ['missing response_type', { response_type: null }, 'invalid_request'],
  ['token response type', { response_type: 'token' }, 'unsupported_response_type'],
  ['query mode with token', { response_type: 'code token', response_mode: 'query' }, 'invalid_request'],
  ['unknown response_mode', { response_mode: 'web_message' }, 'invalid_request'],
  ['missing state', { state: null }, 'invalid_request'],
  ['state of 65 bytes', { state: 'é'.repeat(32) + 'x' }, 'invalid_request'],
  ['missing scope', { scope: null }, 'invalid_request'],
  ['unknown scope', { scope: 'telegram.list nope.nope' }, 'invalid_scope'],
  ['known scope the client may not use', { scope: 'socket.start' }, 'invalid_scope'],
  ['public client without PKCE', { code_challenge: null, code_challenge_method: null }, 'invalid_request'],
  ['method without challenge', { code_challenge: null }, 'invalid_request'],
  ['unknown method', { code_challenge_method: 'S512' }, 'unsupported_code_challenge_method'],
  ['short challenge', { code_challenge: 'a'.repeat(42) }, 'invalid_request'],
  ['long challenge', { code_challenge: 'a'.repeat(129) }, 'invalid_request'],
  ['illegal challenge character', { code_challenge: 'a'.repeat(42) + '+' }, 'invalid_request'],
  ['bad dpop_jkt', { dpop_jkt: 'short' }, 'invalid_request'],
  ['repeated scope', query() + '&scope=telegram.data', 'invalid_request'],
];
for (const [name, change, code] of cases) {
  test(`redirected error: ${name} → ${code}`, async () => {
    const o = await outcome(typeof change === 'string' ? change : query(change));
    assert.equal(o.kind, 'redirect_error');
    if (o.kind === 'redirect_error') assert.equal(o.error, code);
  });
}

test('state of exactly 64 bytes is fine; an invalid state is not echoed', async () => {
  const ok = await outcome(query({ state: 'é'.repeat(32) }));
  assert.equal(ok.kind, 'valid');
  const bad = await outcome(query({ state: 'x'.repeat(65) }));
  assert.equal(bad.kind === 'redirect_error' && bad.delivery.state, null);
  const repeated = await outcome(query() + '&state=again');
  assert.equal(repeated.kind === 'redirect_error' && repeated.delivery.state, null);
});

test('token response types are answered in the fragment', async () => {
  const o = await outcome(query({ response_type: 'token', response_mode: 'query' }));
  assert.equal(o.kind === 'redirect_error' && o.delivery.mode, 'fragment');
});

test('a client without the code grant is unauthorized_client', async () => {
  const cc: OAuthClient = { ...client, type: 'confidential', grants: ['client_credentials'] };
  const params = parseUrlEncoded(query());
  assert.ok(params);
  const o = await validateAuthorizationRequest(params, async () => cc);
  assert.equal(o.kind === 'redirect_error' && o.error, 'unauthorized_client');
});
