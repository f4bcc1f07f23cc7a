import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCredential } from '../../src/security/credential-reader.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');

test('Bearer, DPoP and Basic, the scheme in any case (RFC 9110 §11.1)', () => {
  assert.deepEqual(readCredential('Bearer ATn.abc'), {
    scheme: 'Bearer',
    credential: { scheme: 'Bearer', token: 'ATn.abc' },
  });
  assert.deepEqual(readCredential('bEARER ATn.abc').credential, { scheme: 'Bearer', token: 'ATn.abc' });
  assert.deepEqual(readCredential('dpop ATn.xyz').credential, { scheme: 'DPoP', token: 'ATn.xyz' });
  assert.deepEqual(readCredential(`BASIC ${b64('AKe.key:')}`).credential, {
    scheme: 'Basic',
    user: 'AKe.key',
    password: '',
  });
  // Space after the scheme is 1*SP; surrounding space is not part of the credentials.
  assert.deepEqual(readCredential('Bearer   ATn.abc  ').credential, { scheme: 'Bearer', token: 'ATn.abc' });
});

test('Basic: the password may hold colons; id and secret are form-decoded (RFC 6749 §2.3.1)', () => {
  assert.deepEqual(readCredential(`Basic ${b64('CId.a:CSt.b:c')}`).credential, {
    scheme: 'Basic',
    user: 'CId.a',
    password: 'CSt.b:c',
  });
  assert.deepEqual(readCredential(`Basic ${b64('CId%2Ea+b:%C3%A9%3A')}`).credential, {
    scheme: 'Basic',
    user: 'CId.a b',
    password: 'é:',
  });
  // Unpadded base64 is still base64.
  assert.equal(readCredential(`Basic ${b64('ab:c').replace(/=+$/, '')}`).credential?.scheme, 'Basic');
});

test('Basic that is not strict base64 of "user:password" is malformed, not guessed at', () => {
  for (const encoded of [
    '!!!not-base64!!!',
    b64('AKe.key:').replace(/=+$/, '==='), // too much padding
    b64('a:b') + '=x', // padding inside
    Buffer.from('a?b:c>').toString('base64url'), // the URL-safe alphabet
    `${b64('a:b')} ${b64('c:d')}`, // two credentials
    b64('no-colon'),
    b64(':secret-without-user'),
    b64('id%ZZ:secret'),
    b64('id:%E3%81'),
    b64('a:' + 'b'.repeat(3073)), // over 4096 characters
  ]) {
    assert.deepEqual(readCredential(`Basic ${encoded}`), { scheme: 'Basic', credential: null }, encoded);
  }
  assert.equal(readCredential(`Basic ${b64('a:' + 'b'.repeat(3070))}`).credential?.scheme, 'Basic', '4096');
});

test('empty values: a scheme with no credentials, an empty header', () => {
  assert.deepEqual(readCredential('Bearer'), { scheme: 'Bearer', credential: null });
  assert.deepEqual(readCredential('Bearer    '), { scheme: 'Bearer', credential: null });
  assert.deepEqual(readCredential('DPoP '), { scheme: 'DPoP', credential: null });
  assert.deepEqual(readCredential('Basic'), { scheme: 'Basic', credential: null });
  assert.deepEqual(readCredential('Basic '), { scheme: 'Basic', credential: null });
  assert.deepEqual(readCredential(''), { scheme: null, credential: null });
  assert.deepEqual(readCredential(' Bearer ATn.abc'), { scheme: null, credential: null });
});

test('other schemes, and a scheme glued to its credentials, are no scheme of ours', () => {
  for (const header of ['Digest abc', 'Token ATn.abc', 'Bearer:ATn.abc', 'BearerATn.abc', 'Basic,Bearer x']) {
    assert.deepEqual(readCredential(header), { scheme: null, credential: null }, header);
  }
});
