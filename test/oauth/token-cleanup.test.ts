// Expired tokens, DPoP proof ids and old codes are deleted by the periodic cleanup.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanUpTokens } from '../../src/oauth/token-cleanup.ts';
import { makeProof, proofKey } from '../support/dpop.ts';
import { basic, postForm, startAuthHarness, type AuthHarness } from '../support/oauth.ts';

const DAY = 86_400_000;

describe('token cleanup', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness({}, undefined, { listen: false });
  });
  after(async () => h.close());

  const count = async (table: string) =>
    Number((await h.server.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);

  test('only what has expired is deleted', async () => {
    const db = h.server.ctx.db;
    await db.query('DELETE FROM oauth_tokens');
    const { code } = await h.code(h.C1);
    const issued = await postForm(
      h.tokenUrl,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/cb' },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    assert.equal(issued.status, 200);
    const key = await proofKey();
    const cc = await postForm(
      h.tokenUrl,
      { grant_type: 'client_credentials', scope: 'telegram.list' },
      {
        authorization: basic(h.CC.id, h.CC.secret!),
        dpop: await makeProof(key, { htu: h.tokenUrl, iat: Math.floor(h.clock.now() / 1000) }),
      },
    );
    assert.equal(cc.status, 200);
    const unused = await h.code(h.C2);
    assert.equal(await count('oauth_tokens'), 3);
    assert.ok((await count('dpop_proofs')) >= 1);

    // Nothing has expired yet.
    await cleanUpTokens({ db, clock: h.clock });
    assert.equal(await count('oauth_tokens'), 3);
    assert.equal(await count('oauth_codes WHERE grant_id = ' + unused.grantId), 1);

    // Seven hours on: both access tokens and the proof id have expired; the refresh token has not.
    h.clock.advance(7 * 3_600_000);
    await cleanUpTokens({ db, clock: h.clock });
    assert.deepEqual(
      (await db.query<{ kind: string }>('SELECT kind FROM oauth_tokens')).map((r) => r.kind),
      ['refresh'],
    );
    assert.equal(await count('dpop_proofs'), 0);

    // Two days on, the codes are gone and so is the authorization nobody redeemed.
    h.clock.advance(2 * DAY);
    await cleanUpTokens({ db, clock: h.clock });
    assert.equal(await count(`oauth_codes WHERE grant_id = ${unused.grantId}`), 0);
    assert.equal(await count(`oauth_grants WHERE id = ${unused.grantId}`), 0);
    assert.equal(await count('oauth_tokens'), 1);

    // 184 days without use: the refresh token goes too.
    h.clock.advance(184 * DAY);
    await cleanUpTokens({ db, clock: h.clock });
    assert.equal(await count('oauth_tokens'), 0);
  });
});
