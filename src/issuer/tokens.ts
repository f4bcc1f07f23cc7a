import { busCodecs } from '../bus/codecs.ts';
import type { Bus } from '../bus/types.ts';
import type { Db, Queryable, SqlParam } from '../db/types.ts';
import { digestSecret, newSecret, prefixes } from '../security/secrets.ts';

/** Access tokens live 21,600 s (docs/oauth.md "Authorization code grant"). */
export const ACCESS_TOKEN_TTL_S = 21_600;
/** Refresh tokens live 183 days from their last use (sliding). */
export const REFRESH_TOKEN_TTL_MS = 183 * 86_400_000;

export type TokenKind = 'access' | 'refresh';

export interface TokenRecord {
  digest: string;
  kind: TokenKind;
  /** The authorization (token family); null for client-credentials tokens. */
  grantId: number | null;
  clientId: string;
  accountId: number;
  scopes: string[];
  /** DPoP key thumbprint the token is bound to, or null for a bearer token. */
  jkt: string | null;
  createdAt: Date;
  expiresAt: Date;
}

interface TokenRow {
  digest: string;
  kind: TokenKind;
  grant_id: number | null;
  client_id: string;
  account_id: number;
  scopes: string[];
  jkt: string | null;
  created_at: Date;
  expires_at: Date;
}

function toRecord(r: TokenRow): TokenRecord {
  return {
    digest: r.digest,
    kind: r.kind,
    grantId: r.grant_id,
    clientId: r.client_id,
    accountId: r.account_id,
    scopes: r.scopes,
    jkt: r.jkt,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

export type NewToken = Omit<TokenRecord, 'digest' | 'createdAt'>;

/** A fresh token value and the digest stored in its place. */
export function mintToken(pepper: Buffer, kind: TokenKind): { value: string; digest: string } {
  const value = newSecret(kind === 'access' ? prefixes.accessToken : prefixes.refreshToken);
  return { value, digest: digestSecret(pepper, value) };
}

/**
 * Stores tokens in one statement (one round trip) and returns their values; only digests are kept.
 * `now` is the issuing clock's time, so tests can move it.
 */
export async function storeTokens(
  q: Queryable,
  pepper: Buffer,
  now: number,
  tokens: readonly NewToken[],
): Promise<string[]> {
  const values: string[] = [];
  const params: SqlParam[] = [];
  const tuples: string[] = [];
  for (const t of tokens) {
    const { value, digest } = mintToken(pepper, t.kind);
    values.push(value);
    const n = params.length;
    tuples.push(
      `($${n + 1},$${n + 2},$${n + 3},$${n + 4},$${n + 5},$${n + 6},$${n + 7},$${n + 8},$${n + 9})`,
    );
    params.push(
      digest,
      t.kind,
      t.grantId,
      t.clientId,
      t.accountId,
      t.scopes,
      t.jkt,
      new Date(now),
      t.expiresAt,
    );
  }
  await q.query(
    `INSERT INTO oauth_tokens (digest, kind, grant_id, client_id, account_id, scopes, jkt, created_at, expires_at)
     VALUES ${tuples.join(',')}`,
    params,
  );
  return values;
}

/**
 * The unexpired token with this digest whose client is still registered, or null: deleting a client
 * therefore ends its tokens at once.
 */
export async function findLiveToken(q: Queryable, digest: string, now: number): Promise<TokenRecord | null> {
  const rows = await q.query<TokenRow>(
    `SELECT t.* FROM oauth_tokens t JOIN oauth_clients c ON c.client_id = t.client_id
     WHERE t.digest = $1 AND t.expires_at > $2 AND c.revoked_at IS NULL`,
    [digest, new Date(now)],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** A token's owner, live or not (for revocation, which must not depend on expiry). */
export async function findTokenOwner(
  q: Queryable,
  digest: string,
): Promise<{ kind: TokenKind; clientId: string; grantId: number | null } | null> {
  const rows = await q.query<{ kind: TokenKind; client_id: string; grant_id: number | null }>(
    'SELECT kind, client_id, grant_id FROM oauth_tokens WHERE digest = $1',
    [digest],
  );
  const r = rows[0];
  return r ? { kind: r.kind, clientId: r.client_id, grantId: r.grant_id } : null;
}

/**
 * One statement for a refresh: moves the refresh token's expiry to `now` + 183 days (never past
 * the issuance of its authorization's first refresh token + `absoluteMaxMs`, the absolute cap) and
 * stores the new access token, which inherits the refresh token's authorization, client and account.
 * Returns the access token's value, or null when the refresh token expired or vanished since it was
 * read, or its account is disabled. The account is share-locked until the statement commits: a
 * disabling that runs meanwhile waits for it and then deletes the new token too.
 */
export async function refreshAccessToken(
  q: Queryable,
  pepper: Buffer,
  now: number,
  refresh: { digest: string; absoluteMaxMs: number },
  access: { scopes: string[]; jkt: string | null; expiresAt: Date },
): Promise<string | null> {
  const { value, digest } = mintToken(pepper, 'access');
  const rows = await q.query(
    `WITH r AS (
       UPDATE oauth_tokens
          SET expires_at = LEAST($2::timestamptz,
                COALESCE(family_issued_at, created_at) + make_interval(secs => $3::double precision))
        WHERE digest = $1 AND kind = 'refresh' AND expires_at > $4
          AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = oauth_tokens.account_id AND a.disabled_at IS NULL FOR SHARE)
        RETURNING grant_id, client_id, account_id)
     INSERT INTO oauth_tokens (digest, kind, grant_id, client_id, account_id, scopes, jkt, created_at, expires_at)
     SELECT $5, 'access', grant_id, client_id, account_id, $6, $7, $4, $8 FROM r
     RETURNING 1`,
    [
      refresh.digest,
      new Date(now + REFRESH_TOKEN_TTL_MS),
      refresh.absoluteMaxMs / 1000,
      new Date(now),
      digest,
      access.scopes,
      access.jkt,
      access.expiresAt,
    ],
  );
  return rows.length === 1 ? value : null;
}

/** Deletes every token of an authorization; returns the deleted digests (for cache eviction). */
export async function deleteGrantTokens(q: Queryable, grantId: number): Promise<string[]> {
  const rows = await q.query<{ digest: string }>(
    'DELETE FROM oauth_tokens WHERE grant_id = $1 RETURNING digest',
    [grantId],
  );
  return rows.map((r) => r.digest);
}

/**
 * Ends an authorization (its refresh token revoked): its tokens, then the grant itself, so that the
 * WebSocket sessions started with its tokens are cut off too (sessions/socket-sessions.ts
 * `cutOffSessions`). Returns the deleted token digests.
 */
export async function endGrant(db: Db, grantId: number): Promise<string[]> {
  return db.tx(async (q) => {
    const digests = await deleteGrantTokens(q, grantId);
    await q.query('DELETE FROM oauth_grants WHERE id = $1', [grantId]);
    return digests;
  });
}

/** Deletes one token; returns whether it existed. */
export async function deleteToken(q: Queryable, digest: string): Promise<boolean> {
  const rows = await q.query('DELETE FROM oauth_tokens WHERE digest = $1 RETURNING 1', [digest]);
  return rows.length === 1;
}

/** Deletes up to `batch` expired tokens; returns how many (call again while it returns `batch`). */
export async function pruneExpiredTokens(q: Queryable, now: number, batch = 5000): Promise<number> {
  const rows = await q.query(
    `DELETE FROM oauth_tokens WHERE digest IN
       (SELECT digest FROM oauth_tokens WHERE expires_at < $1 LIMIT $2) RETURNING 1`,
    [new Date(now), batch],
  );
  return rows.length;
}

/** Tells every process's resource-server cache to forget these tokens (after the delete commits). */
export async function announceRevoked(bus: Bus, digests: readonly string[]): Promise<void> {
  for (const digest of digests) await busCodecs.revoked.publish(bus, { digest });
}
