import type { Clock } from '../clock.ts';
import type { Db, Queryable } from '../db/types.ts';
import { deleteGrantTokens } from './tokens.ts';

/** The authorizations (oauth_grants rows) an account has given, as its account page lists them. */
export interface Authorization {
  id: number;
  clientId: string;
  clientName: string;
  scopes: string[];
  createdAt: Date;
}

export const MAX_LISTED_AUTHORIZATIONS = 200;

/** Authorizations still in force: a pending code or an unexpired token hangs off them. */
export async function listAuthorizations(
  q: Queryable,
  clock: Clock,
  accountId: number,
): Promise<Authorization[]> {
  const rows = await q.query<{
    id: number;
    client_id: string;
    name: string;
    scopes: string[];
    created_at: Date;
  }>(
    `SELECT g.id, g.client_id, c.name, g.scopes, g.created_at
       FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
      WHERE g.account_id = $1
        AND (EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = g.id AND t.expires_at > $2)
          OR EXISTS (SELECT 1 FROM oauth_codes k WHERE k.grant_id = g.id AND k.used_at IS NULL AND k.expires_at > $2))
      ORDER BY g.created_at DESC, g.id DESC
      LIMIT $3`,
    [accountId, new Date(clock.now()), MAX_LISTED_AUTHORIZATIONS],
  );
  return rows.map((r) => ({
    id: r.id,
    clientId: r.client_id,
    clientName: r.name,
    scopes: r.scopes,
    createdAt: r.created_at,
  }));
}

/**
 * Withdraws one of the account's authorizations: its codes, its tokens, then the grant, in one
 * transaction. Returns the digests of the deleted tokens, for announcing on the bus so every process
 * drops them from its caches at once; null when no such grant belongs to the account.
 *
 * Rows are locked children first, the grant last, as a code redemption or a refresh locks them (its
 * code or refresh token row, then the grant's key when it inserts tokens): locking the grant first
 * deadlocked with them. A redemption or refresh in flight finishes first and its tokens are deleted
 * with the others; one that comes after the grant is gone finds nothing to redeem or refresh.
 */
export async function revokeAuthorization(
  db: Db,
  accountId: number,
  grantId: number,
): Promise<string[] | null> {
  return db.tx(async (q) => {
    const grant = await q.query('SELECT id FROM oauth_grants WHERE id = $1 AND account_id = $2', [
      grantId,
      accountId,
    ]);
    if (grant.length === 0) return null;
    await q.query('DELETE FROM oauth_codes WHERE grant_id = $1', [grantId]);
    const digests = await deleteGrantTokens(q, grantId);
    await q.query('DELETE FROM oauth_grants WHERE id = $1', [grantId]);
    return digests;
  });
}
