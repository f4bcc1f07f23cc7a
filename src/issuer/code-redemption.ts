import type { Queryable } from '../db/types.ts';
import type { ChallengeMethod } from './pkce.ts';

/** What the token endpoint needs of a redeemed code. */
export interface RedeemedCode {
  grantId: number;
  clientId: string;
  accountId: number;
  /** redirect_uri as sent at authorization; null when it was omitted there. */
  redirectUri: string | null;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: ChallengeMethod | null;
  dpopJkt: string | null;
}

export type Redemption =
  | { status: 'redeemed'; code: RedeemedCode }
  /** Unknown, expired, issued to another client, or of an account disabled since. */
  | { status: 'invalid' }
  /** Already redeemed once: the caller must revoke the authorization's tokens. */
  | { status: 'reused'; grantId: number };

interface CodeRow {
  grant_id: number;
  client_id: string;
  account_id: number;
  redirect_uri: string | null;
  scopes: string[];
  code_challenge: string | null;
  code_challenge_method: ChallengeMethod | null;
  dpop_jkt: string | null;
}

/**
 * Marks a code used, atomically: of two concurrent redemptions exactly one gets `redeemed` (the
 * row update is the arbiter); every later one gets `reused`. A code is spent by the redemption
 * attempt itself, so a failed PKCE or redirect check cannot be retried with other guesses.
 *
 * A code of a disabled account is not redeemed: disabling ends the account's tokens, and a code
 * still pending must not bring them back. The account row is share-locked until the caller's
 * transaction ends, so a disabling that runs meanwhile waits for it and then deletes its tokens.
 */
export async function redeemCode(
  q: Queryable,
  digest: string,
  clientId: string,
  now: number,
): Promise<Redemption> {
  const at = new Date(now);
  const rows = await q.query<CodeRow>(
    `UPDATE oauth_codes SET used_at = $3
      WHERE digest = $1 AND client_id = $2 AND used_at IS NULL AND expires_at > $3
        AND EXISTS (SELECT 1 FROM accounts a
                     WHERE a.id = oauth_codes.account_id AND a.disabled_at IS NULL FOR SHARE)
      RETURNING grant_id, client_id, account_id, redirect_uri, scopes, code_challenge, code_challenge_method, dpop_jkt`,
    [digest, clientId, at],
  );
  const r = rows[0];
  if (r) {
    return {
      status: 'redeemed',
      code: {
        grantId: r.grant_id,
        clientId: r.client_id,
        accountId: r.account_id,
        redirectUri: r.redirect_uri,
        scopes: r.scopes,
        codeChallenge: r.code_challenge,
        codeChallengeMethod: r.code_challenge_method,
        dpopJkt: r.dpop_jkt,
      },
    };
  }
  const seen = await q.query<{ grant_id: number; used: boolean }>(
    'SELECT grant_id, used_at IS NOT NULL AS used FROM oauth_codes WHERE digest = $1',
    [digest],
  );
  // A used code presented again, by any client, means it leaked: its authorization is revoked.
  if (seen[0]?.used) return { status: 'reused', grantId: seen[0].grant_id };
  return { status: 'invalid' };
}

/**
 * Deletes codes expired for more than `keepMs` (used codes are kept that long after expiry so a
 * late replay is still recognised as reuse), and authorizations left with no code and no token.
 */
export async function pruneCodes(q: Queryable, now: number, keepMs: number): Promise<void> {
  const before = new Date(now - keepMs);
  await q.query('DELETE FROM oauth_codes WHERE expires_at < $1', [before]);
  await q.query(
    `DELETE FROM oauth_grants g WHERE g.created_at < $1
       AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.grant_id = g.id)
       AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = g.id)`,
    [before],
  );
}
