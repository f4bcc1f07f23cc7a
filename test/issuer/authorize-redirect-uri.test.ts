import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redirectUriProblem } from '../../src/issuer/client-registration.ts';
import { isLoopbackHost, resolveRedirectUri } from '../../src/issuer/redirect-uris.ts';

const web = ['https://app.example/cb'];
const native = ['http://127.0.0.1/callback', 'http://localhost/callback'];

test('exact match is required for ordinary URIs (A5)', () => {
  assert.equal(resolveRedirectUri(web, 'https://app.example/cb'), 'https://app.example/cb');
  for (const variant of [
    'https://app.example:443/cb',
    'https://APP.example/cb',
    'https://app.example/cb/',
    'https://app.example/cb?x=1',
    'https://app.example/x/../cb',
    'https://app.example%2Fcb',
    'https://app.example/cb#f',
    'http://app.example/cb',
    'https://app.example/c%62',
  ]) {
    assert.equal(resolveRedirectUri(web, variant), null, variant);
  }
});

test('omitted redirect_uri: only with exactly one registered, non-loopback URI (A6)', () => {
  assert.equal(resolveRedirectUri(web, null), 'https://app.example/cb');
  assert.equal(resolveRedirectUri([...web, 'https://app.example/other'], null), null);
  assert.equal(resolveRedirectUri(['http://127.0.0.1/callback'], null), null);
  assert.equal(
    resolveRedirectUri(['http://127.0.0.1:8000/callback'], null),
    'http://127.0.0.1:8000/callback',
  );
});

test('loopback rule ignores only the port (A1)', () => {
  assert.equal(
    resolveRedirectUri(native, 'http://127.0.0.1:53682/callback'),
    'http://127.0.0.1:53682/callback',
  );
  assert.equal(resolveRedirectUri(native, 'http://localhost:1/callback'), 'http://localhost:1/callback');
  assert.equal(resolveRedirectUri(native, 'http://127.0.0.1/callback'), 'http://127.0.0.1/callback');
  assert.equal(
    resolveRedirectUri(native, 'http://127.0.0.1:65535/callback'),
    'http://127.0.0.1:65535/callback',
  );
});

test('loopback negatives (A7)', () => {
  for (const uri of [
    'https://127.0.0.1:1/callback',
    'http://127.0.0.1:53682/callback2',
    'http://127.0.0.1:53682/callback/',
    'http://127.0.0.1:53682/callback?x=1',
    'http://127.0.0.1.evil.example/callback',
    'http://127.0.0.1.evil.example:53682/callback',
    'http://127.000.000.001:53682/callback',
    'HTTP://127.0.0.1:53682/callback',
    'http://127.255.255.255:53682/callback',
    'http://127.0.0.2:53682/callback',
    'http://127.0.0.1:0/callback',
    'http://127.0.0.1:65536/callback',
    'http://127.0.0.1:/callback',
    'http://127.0.0.1:0080/callback',
    'http://user@127.0.0.1:53682/callback',
    'http://127.0.0.1:53682@evil.example/callback',
    'http://LOCALHOST:53682/callback',
    'http://[::1]:53682/callback',
    'http://127.0.0.1:53682/callback#f',
  ]) {
    assert.equal(resolveRedirectUri(native, uri), null, uri);
  }
  // A registered loopback URI with a port is compared strictly.
  assert.equal(resolveRedirectUri(['http://127.0.0.1:8000/cb'], 'http://127.0.0.1:9000/cb'), null);
});

test('loopback hosts', () => {
  for (const h of ['localhost', '127.0.0.1', '127.255.255.254', '127.1.2.3', '127.0.0.9']) {
    assert.equal(isLoopbackHost(h), true, h);
  }
  for (const h of [
    '127.255.255.255',
    '127.0.0.0',
    '127.0.0.01',
    '127.1',
    '128.0.0.1',
    '127.0.0.256',
    'localhost.',
  ]) {
    assert.equal(isLoopbackHost(h), false, h);
  }
});

test('registration accepts https, loopback http and private-use schemes only', () => {
  for (const ok of [
    'https://app.example/cb',
    'http://127.0.0.1/callback',
    'http://localhost:3000/cb',
    'com.example.app:/cb',
  ]) {
    assert.equal(redirectUriProblem(ok), null, ok);
  }
  for (const bad of [
    'http://app.example/cb',
    'https://app.example/cb#frag',
    'javascript:alert(1)',
    'data:text/html,x',
    'myapp:/cb',
    '/relative',
    'https://app.example/c b',
    '',
    'https://app.example/' + 'x'.repeat(2000),
  ]) {
    assert.notEqual(redirectUriProblem(bad), null, bad);
  }
});
