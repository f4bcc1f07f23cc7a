import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey, findApiKeyByDigest, revokeApiKey } from '../../src/accounts/api-keys.ts';
import { digestSecret } from '../../src/security/secrets.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ listen: false });
});
after(() => server.close());

const lastUsed = async (id: number) =>
  (
    await server.ctx.db.query<{ last_used_at: Date | null }>(
      'SELECT last_used_at FROM api_keys WHERE id = $1',
      [id],
    )
  )[0]!.last_used_at;

test('a lookup records the last use at most once a minute, and a revoked key is not found', async () => {
  const { db, pepper } = server.ctx;
  const { account } = await server.createAccount();
  const { key, record } = await createApiKey(db, pepper, account.id, ['telegram.list']);
  const digest = digestSecret(pepper, key);
  assert.equal(await lastUsed(record.id), null, 'never used yet');

  assert.deepEqual(await findApiKeyByDigest(db, digest), record);
  const first = await lastUsed(record.id);
  assert.ok(first instanceof Date, 'the first use is recorded');

  assert.deepEqual(await findApiKeyByDigest(db, digest), record);
  assert.equal(
    (await lastUsed(record.id))?.getTime(),
    first.getTime(),
    'a use within the minute writes nothing',
  );

  await db.query(`UPDATE api_keys SET last_used_at = now() - interval '61 seconds' WHERE id = $1`, [
    record.id,
  ]);
  const old = (await lastUsed(record.id))!;
  assert.deepEqual(await findApiKeyByDigest(db, digest), record);
  assert.ok((await lastUsed(record.id))!.getTime() > old.getTime(), 'a use after a minute is recorded');

  assert.equal(await revokeApiKey(db, pepper, key), true);
  assert.equal(await findApiKeyByDigest(db, digest), null);
  assert.equal(await findApiKeyByDigest(db, digestSecret(pepper, 'AKe.unknown')), null);
});
