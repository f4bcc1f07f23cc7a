import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { revokeApiKey } from '../../src/accounts/api-keys.ts';
import { AuthError } from '../../src/access/auth-error.ts';
import {
  createAuthenticator,
  requireScope,
  type Authenticator,
  type ResourceRequest,
} from '../../src/access/authenticate.ts';
import { describeError } from '../../src/http/errors.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let auth: Authenticator;
let key: string;
let accountId: number;
before(async () => {
  server = await startTestServer({ listen: false });
  auth = await createAuthenticator(server.ctx, null);
  ({
    account: { id: accountId },
  } = await server.createAccount());
  key = await server.createApiKey(accountId, ['telegram.list', 'contract.list']);
});
after(async () => {
  await auth.close();
  await server.close();
});

/** The parts of a request the authenticator reads. */
const request = (headers: { authorization?: string }, query: { key?: string } = {}): ResourceRequest => ({
  method: 'GET',
  authorization: headers.authorization,
  apiKey: query.key,
  dpop: [],
  urls: () => ['http://127.0.0.1/v2/telegram'],
});

/** The error as the HTTP layer answers it. */
const answer = (err: unknown) => (err instanceof AuthError ? describeError(err) : undefined);

const is401 = (err: unknown) =>
  answer(err)?.status === 401 &&
  answer(err)?.message === 'Authentication required.' &&
  /^Bearer /.test(answer(err)?.headers['www-authenticate'] ?? '');

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
      answer(err)?.status === 403 && answer(err)?.message === 'Insufficient scope for `socket.start`.',
  );
});
