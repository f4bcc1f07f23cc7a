import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkRegistration,
  RegistrationError,
  type RegistrationField,
  type RegistrationInput,
} from '../../src/issuer/client-registration.ts';

const label = (field: RegistrationField) => `<${field}>`;

const web: RegistrationInput = {
  name: '  Weather app ',
  type: 'confidential',
  redirectUris: ['https://app.example/cb', 'https://app.example/cb'],
  grants: ['authorization_code', 'refresh_token', 'authorization_code'],
  scopes: 'telegram.list  telegram.data',
};

function refusal(input: RegistrationInput): { field: RegistrationField; message: string } {
  try {
    checkRegistration(input, label);
  } catch (e) {
    assert.ok(e instanceof RegistrationError, String(e));
    return { field: e.field, message: e.message };
  }
  assert.fail('expected the registration to be refused');
}

test('a valid registration is normalised: name trimmed, duplicates dropped, optional fields null', () => {
  assert.deepEqual(checkRegistration(web, label), {
    name: 'Weather app',
    type: 'confidential',
    redirectUris: ['https://app.example/cb'],
    grants: ['authorization_code', 'refresh_token'],
    scopes: ['telegram.list', 'telegram.data'],
    refreshRotation: 'default',
    contact: null,
    appUrl: null,
    termsUrl: null,
    privacyUrl: null,
  });
  const service = checkRegistration(
    {
      name: 'Ingest',
      type: 'confidential',
      redirectUris: [],
      grants: ['client_credentials'],
      scopes: 'telegram.list',
      contact: ' ops@example.org ',
      appUrl: 'https://app.example/',
    },
    label,
  );
  assert.equal(service.contact, 'ops@example.org');
  assert.equal(checkRegistration({ ...web, refreshRotation: 'on' }, label).refreshRotation, 'on');
  assert.equal(checkRegistration({ ...web, refreshRotation: 'off' }, label).refreshRotation, 'off');
  assert.equal(service.appUrl, 'https://app.example/');
});

test('each broken rule names its field', () => {
  const cases: [Partial<RegistrationInput>, RegistrationField, RegExp][] = [
    [{ name: '   ' }, 'name', /^<name> must be 1 to 100 printable characters$/],
    [{ name: 'x'.repeat(101) }, 'name', /<name> must be 1 to 100/],
    [{ name: 'a\u0007b' }, 'name', /<name> must be 1 to 100/],
    [{ type: 'secret' }, 'type', /^<type> must be confidential or public$/],
    [{ grants: [] }, 'grants', /^at least one <grants> is required$/],
    [{ grants: ['password'] }, 'grants', /^<grants> must be one of .*, got "password"$/],
    [{ type: 'public', grants: ['client_credentials'] }, 'grants', /public clients cannot use/],
    [{ grants: ['refresh_token'] }, 'grants', /refresh_token needs <grants> authorization_code/],
    [{ redirectUris: [] }, 'redirectUris', /needs at least one <redirectUris>$/],
    [
      { redirectUris: Array.from({ length: 21 }, (_, i) => `https://app.example/${i}`) },
      'redirectUris',
      /^at most 20 <redirectUris>$/,
    ],
    [{ redirectUris: ['http://app.example/cb'] }, 'redirectUris', /may use http only with localhost/],
    [{ redirectUris: ['https://app.example/cb#x'] }, 'redirectUris', /must not contain a fragment/],
    [{ redirectUris: ['javascript:alert(1)'] }, 'redirectUris', /must use https, http on a loopback host/],
    [{ scopes: ' ' }, 'scopes', /^<scopes> must name at least one scope$/],
    [{ scopes: 'telegram.list nope' }, 'scopes', /^unknown scope\(s\): nope$/],
    [
      { refreshRotation: 'always' },
      'refreshRotation',
      /^<refreshRotation> must be one of default, on, off, got "always"$/,
    ],
    [{ contact: ' ' }, 'contact', /<contact> must be 1 to 254/],
    [
      { appUrl: 'ftp://app.example/' },
      'appUrl',
      /^<appUrl> must be an http\(s\) URL, got "ftp:\/\/app.example\/"$/,
    ],
    [{ termsUrl: 'not a url' }, 'termsUrl', /<termsUrl> must be an http\(s\) URL/],
    [{ privacyUrl: 'https://' + 'a'.repeat(2000) }, 'privacyUrl', /<privacyUrl> must be an http\(s\) URL/],
  ];
  for (const [change, field, message] of cases) {
    const got = refusal({ ...web, ...change });
    assert.equal(got.field, field, JSON.stringify(change));
    assert.match(got.message, message);
  }
});

test('every field that breaks a rule is named at once, each with its first broken rule, in form order', () => {
  try {
    checkRegistration(
      {
        ...web,
        privacyUrl: 'ftp://app.example/privacy',
        scopes: 'nope',
        grants: ['password', 'client_credentials'],
        type: 'public',
        name: '',
      },
      label,
    );
    assert.fail('expected the registration to be refused');
  } catch (e) {
    assert.ok(e instanceof RegistrationError, String(e));
    assert.deepEqual(
      e.problems.map((p) => p.field),
      ['name', 'grants', 'scopes', 'privacyUrl'],
    );
    assert.match(e.messageFor('grants') ?? '', /^<grants> must be one of .*, got "password"$/);
    assert.equal(e.messageFor('type'), undefined);
    assert.equal(e.field, 'name');
    assert.match(
      e.message,
      /^<name> must be .*; <grants> must be .*; unknown scope\(s\): nope; <privacyUrl> must be/,
    );
  }
});

test('accepted redirect URIs: https, http on a loopback host, private-use schemes', () => {
  const uris = [
    'https://app.example/cb',
    'http://127.0.0.1/cb',
    'http://localhost:8080/cb',
    'com.example.app:/cb',
  ];
  assert.deepEqual(checkRegistration({ ...web, redirectUris: uris }, label).redirectUris, uris);
});
