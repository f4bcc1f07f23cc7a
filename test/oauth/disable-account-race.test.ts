// An account disabled while a token is being issued to it (docs/oauth.md "Token endpoint"): whichever
// commits first, no token of the account survives the disabling. The issuance is held open in its
// transaction while the disabling runs (PostgreSQL: two transactions at once), on the real server's
// database, for the three ways a token is issued without a code: a rotating refresh, a refresh that
// keeps its refresh token, and the client_credentials grant.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAccount, disableAccount } from '../../src/accounts/accounts.ts';
import type { Queryable } from '../../src/db/types.ts';
import { issueCode } from '../../src/issuer/codes.ts';
import { rotateRefreshToken } from '../../src/issuer/refresh-rotation.ts';
import { AccountTokenWriter } from '../../src/issuer/token-batch.ts';
import { refreshAccessToken } from '../../src/issuer/tokens.ts';
import { digestSecret } from '../../src/security/secrets.ts';
import { startHarness, type Harness } from '../support/browser.ts';
import { testDatabaseUrl } from '../support/database.ts';
import { basic, postForm } from '../support/oauth.ts';
import { heldTransaction, lockWaitCount } from '../support/races.ts';
import { waitFor } from '../support/wait.ts';

const PG_ONLY = {
  skip: testDatabaseUrl ? false : 'needs transactions at once: PostgreSQL (NAMAZU_TEST_DATABASE_URL)',
};
const REDIRECT_URI = 'https://app.example/cb';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

/** A fresh account with an authorization of C1 and its refresh token (through the token endpoint). */
async function accountWithRefreshToken(name: string): Promise<{ accountId: number; refreshDigest: string }> {
  const { db, pepper } = h.server.ctx;
  const account = await createAccount(db, { email: `${name}@example.test`, password: 'x'.repeat(12) });
  const c1 = h.clients.C1;
  const { code } = await issueCode(db, pepper, h.clock, {
    clientId: c1.client.clientId,
    accountId: account.id,
    redirectUri: REDIRECT_URI,
    scopes: ['telegram.list'],
    codeChallenge: null,
    codeChallengeMethod: null,
    dpopJkt: null,
  });
  const tokens = await postForm(
    `${h.origin}/account/oauth2/v1/token`,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
    { authorization: basic(c1.client.clientId, c1.secret!) },
  );
  assert.equal(tokens.status, 200, tokens.text);
  return { accountId: account.id, refreshDigest: digestSecret(pepper, tokens.json!.refresh_token as string) };
}

/**
 * Issues in a transaction held open, disables the account meanwhile (it either waits for the
 * issuance or runs through), then lets the issuance commit: no token of the account is left.
 */
async function disabledDuringIssuance(accountId: number, issue: (q: Queryable) => Promise<unknown>) {
  const { db } = h.server.ctx;
  const issuing = heldTransaction(db, issue);
  await issuing.started;
  let disabled = false;
  const disabling = disableAccount(db, accountId).then((r) => {
    disabled = true;
    return r;
  });
  await waitFor(async () => disabled || (await lockWaitCount(db)) > 0, {
    message: 'the disabling done, or waiting for the issuance',
  });
  issuing.release();
  await issuing.done;
  assert.ok(await disabling);
  const left = await db.query('SELECT kind FROM oauth_tokens WHERE account_id = $1', [accountId]);
  assert.deepEqual(left, [], 'tokens of the disabled account');
}

const access = () => ({
  scopes: ['telegram.list'],
  jkt: null,
  expiresAt: new Date(h.clock.now() + 3_600_000),
});

test('a rotating refresh of an account disabled meanwhile leaves it no token', PG_ONLY, async () => {
  const { accountId, refreshDigest } = await accountWithRefreshToken('rotating');
  const { pepper } = h.server.ctx;
  await disabledDuringIssuance(accountId, (q) =>
    rotateRefreshToken(
      q,
      pepper,
      h.clock.now(),
      { digest: refreshDigest, absoluteMaxMs: 86_400_000 },
      access(),
    ),
  );
});

test(
  'a refresh that keeps its refresh token, of an account disabled meanwhile, leaves it no token',
  PG_ONLY,
  async () => {
    const { accountId, refreshDigest } = await accountWithRefreshToken('keeping');
    const { pepper } = h.server.ctx;
    await disabledDuringIssuance(accountId, (q) =>
      refreshAccessToken(
        q,
        pepper,
        h.clock.now(),
        { digest: refreshDigest, absoluteMaxMs: 86_400_000 },
        access(),
      ),
    );
  },
);

test('a client_credentials token of an account disabled meanwhile does not survive', PG_ONLY, async () => {
  const { db, pepper } = h.server.ctx;
  const account = await createAccount(db, { email: 'machine@example.test', password: 'x'.repeat(12) });
  await disabledDuringIssuance(account.id, async (q) => {
    const token = await new AccountTokenWriter(q, pepper).issue(h.clock.now(), {
      kind: 'access',
      grantId: null,
      clientId: h.clients.CC.client.clientId,
      accountId: account.id,
      ...access(),
    });
    assert.ok(token, 'issued while the account was active');
  });
});
