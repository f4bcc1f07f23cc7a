import type { Queryable } from '../db/types.ts';
import type { OAuthClient } from './clients.ts';
import { mintToken, REFRESH_TOKEN_TTL_MS } from './tokens.ts';

/**
 * Rotation of refresh tokens (docs/oauth.md "Refresh token rotation"): a refresh that rotates ends
 * the refresh token it used and issues a new one of the same authorization; the ended token's
 * digest is kept until the expiry it had, so that a later use of it is recognised as a reuse.
 */

/** The operator's default (NAMAZU_REFRESH_ROTATION, config.ts): no client, public clients, all. */
export type OperatorRefreshRotation = 'off' | 'public' | 'all';

/** Whether a refresh by this client rotates: the client's own setting, else the operator's default. */
export function rotatesRefreshTokens(
  client: Pick<OAuthClient, 'type' | 'refreshRotation'>,
  operatorDefault: OperatorRefreshRotation,
): boolean {
  if (client.refreshRotation !== 'default') return client.refreshRotation === 'on';
  return operatorDefault === 'all' || (operatorDefault === 'public' && client.type === 'public');
}

export interface RotatedTokens {
  access: string;
  refresh: string;
}

/**
 * One statement for a rotating refresh: deletes the refresh token (only one of two concurrent
 * refreshes with it can), records it as ended, and stores a new access token and a new refresh
 * token of the same authorization, client, account, scopes and DPoP key. The new refresh token
 * expires `now` + 183 days, never past its authorization's first refresh token + `absoluteMaxMs`.
 * Nothing is rotated for a disabled account; the account is share-locked until the statement
 * commits, so a disabling that runs meanwhile waits for it and then deletes the new tokens too.
 * Returns the new values, or null when the refresh token expired or vanished since it was read
 * (another refresh rotated it first, or its authorization ended).
 */
export async function rotateRefreshToken(
  q: Queryable,
  pepper: Buffer,
  now: number,
  refresh: { digest: string; absoluteMaxMs: number },
  access: { scopes: string[]; jkt: string | null; expiresAt: Date },
): Promise<RotatedTokens | null> {
  const newAccess = mintToken(pepper, 'access');
  const newRefresh = mintToken(pepper, 'refresh');
  const rows = await q.query(
    `WITH old AS (
       DELETE FROM oauth_tokens
        WHERE digest = $1 AND kind = 'refresh' AND expires_at > $2
          AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = oauth_tokens.account_id AND a.disabled_at IS NULL FOR SHARE)
        RETURNING grant_id, client_id, account_id, scopes, jkt,
                  COALESCE(family_issued_at, created_at) AS family_issued_at),
     next AS (
       SELECT old.*,
              LEAST($3::timestamptz, family_issued_at + make_interval(secs => $4::double precision)) AS expires_at
         FROM old),
     ended AS (
       INSERT INTO oauth_rotated_tokens (digest, grant_id, client_id, expires_at)
       SELECT $1, grant_id, client_id, expires_at FROM next)
     INSERT INTO oauth_tokens
       (digest, kind, grant_id, client_id, account_id, scopes, jkt, created_at, expires_at, family_issued_at)
     SELECT $5, 'access', grant_id, client_id, account_id, $6, $7, $2, $8, NULL FROM next
     UNION ALL
     SELECT $9, 'refresh', grant_id, client_id, account_id, scopes, jkt, $2, expires_at, family_issued_at FROM next
     RETURNING 1`,
    [
      refresh.digest,
      new Date(now),
      new Date(now + REFRESH_TOKEN_TTL_MS),
      refresh.absoluteMaxMs / 1000,
      newAccess.digest,
      access.scopes,
      access.jkt,
      access.expiresAt,
      newRefresh.digest,
    ],
  );
  return rows.length === 2 ? { access: newAccess.value, refresh: newRefresh.value } : null;
}

/** The authorization and client of a refresh token ended by a rotation and not yet expired, or null. */
export async function findRotatedToken(
  q: Queryable,
  digest: string,
  now: number,
): Promise<{ grantId: number; clientId: string } | null> {
  const rows = await q.query<{ grant_id: number; client_id: string }>(
    'SELECT grant_id, client_id FROM oauth_rotated_tokens WHERE digest = $1 AND expires_at > $2',
    [digest, new Date(now)],
  );
  const r = rows[0];
  return r ? { grantId: r.grant_id, clientId: r.client_id } : null;
}

/** Forgets up to `batch` ended refresh tokens past their expiry; returns how many. */
export async function pruneRotatedTokens(q: Queryable, now: number, batch = 5000): Promise<number> {
  const rows = await q.query(
    `DELETE FROM oauth_rotated_tokens WHERE digest IN
       (SELECT digest FROM oauth_rotated_tokens WHERE expires_at < $1 LIMIT $2) RETURNING 1`,
    [new Date(now), batch],
  );
  return rows.length;
}
