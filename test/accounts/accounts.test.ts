import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AccountError,
  checkPassword,
  createAccount,
  findAccountByEmail,
} from '../../src/accounts/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ listen: false });
});
after(() => server.close());

test('emails are stored lower-cased and found case-insensitively; passwords are checked with scrypt', async () => {
  const { db } = server.ctx;
  const account = await createAccount(db, { email: ' Mixed.Case@Example.TEST ', password: 'long enough pw' });
  assert.equal(account.email, 'mixed.case@example.test');
  assert.equal((await findAccountByEmail(db, 'MIXED.case@example.test'))?.id, account.id);
  assert.equal((await checkPassword(db, 'mixed.case@example.test', 'long enough pw'))?.id, account.id);
  assert.equal(await checkPassword(db, 'mixed.case@example.test', 'wrong password'), null);
  const [row] = await db.query<{ password_hash: string }>(
    'SELECT password_hash FROM accounts WHERE id = $1',
    [account.id],
  );
  assert.match(row!.password_hash, /^scrypt\$/);
  assert.equal(row!.password_hash.includes('long enough pw'), false);
});

test('addresses with control characters are refused at creation and never looked up', async () => {
  const { db } = server.ctx;
  for (const email of [
    'nul\u0000@example.test',
    'tab\t@example.test',
    'a@b\u007f.test',
    'no-at-sign',
    'two@@example.test',
  ]) {
    await assert.rejects(
      createAccount(db, { email, password: 'long enough pw' }),
      AccountError,
      JSON.stringify(email),
    );
    assert.equal(await findAccountByEmail(db, email), null);
    assert.equal(await checkPassword(db, email, 'long enough pw'), null);
  }
});
