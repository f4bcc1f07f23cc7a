import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { revokeApiKey } from '../../src/accounts/api-keys.ts';
import { createAuthenticator, requireScope, type Authenticator } from '../../src/auth/authenticate.ts';
import { HttpError } from '../../src/http/errors.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let auth: Authenticator;
let key: string;
let accountId: number;
before(async () => {
  server = await startTestServer({ listen: false });
  auth = await createAuthenticator(server.ctx);
  ({
    account: { id: accountId },
  } = await server.createAccount());
  key = await server.createApiKey(accountId, ['telegram.list', 'contract.list']);
});
after(() => server.close());

/** The parts of a request the authenticator reads. */
const request = (headers: Record<string, string>, query: Record<string, string> = {}) =>
  ({ headers, query }) as unknown as FastifyRequest;

const is401 = (err: unknown) =>
  err instanceof HttpError &&
  err.statusCode === 401 &&
  err.message === 'Authentication required.' &&
  /^Bearer /.test(err.headers['www-authenticate'] ?? '');

test('an API key as the Basic user name, with an empty password', async () => {
  const p = await auth.authenticate(
    request({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` }),
  );
  assert.equal(p.accountId, accountId);
  assert.equal(p.via, 'apikey');
  assert.deepEqual([...p.scopes].sort(), ['contract.list', 'telegram.list']);
  assert.equal(p.credentialDigest.includes(key), false);
});

test('an API key in the key query parameter', async () => {
  const p = await auth.authenticate(request({}, { key }));
  assert.equal(p.accountId, accountId);
});

test('the scheme name is case-insensitive', async () => {
  const p = await auth.authenticate(
    request({ authorization: `bAsIc ${Buffer.from(`${key}:`).toString('base64')}` }),
  );
  assert.equal(p.accountId, accountId);
});

test('missing, unknown and malformed credentials are 401 with a challenge', async () => {
  await assert.rejects(auth.authenticate(request({})), is401);
  await assert.rejects(auth.authenticate(request({}, { key: 'AKe.nope' })), is401);
  await assert.rejects(auth.authenticate(request({}, { key: 'not-a-key' })), is401);
  await assert.rejects(auth.authenticate(request({ authorization: 'Basic !!!' })), is401);
  await assert.rejects(auth.authenticate(request({ authorization: 'Bearer' })), is401);
  await assert.rejects(auth.authenticate(request({ authorization: 'Digest abc' })), is401);
});

test('a revoked key stops at once when checked fresh', async () => {
  const k = await server.createApiKey(accountId, ['telegram.list']);
  await auth.authenticate(request({}, { key: k }));
  assert.equal(await revokeApiKey(server.ctx.db, server.ctx.pepper, k), true);
  await assert.rejects(auth.authenticate(request({}, { key: k }), { fresh: true }), is401);
});

test('a missing scope is 403 naming the scope', async () => {
  const p = await auth.authenticate(request({}, { key }));
  assert.doesNotThrow(() => requireScope(p, 'telegram.list'));
  assert.throws(
    () => requireScope(p, 'socket.start'),
    (err: unknown) =>
      err instanceof HttpError &&
      err.statusCode === 403 &&
      err.message === 'Insufficient scope for `socket.start`.',
  );
});
