import type { Queryable } from '../db/types.ts';
import { isKnownScope } from '../scopes.ts';
import { digestSecret, newSecret, prefixes } from '../security/secrets.ts';
import { AccountError } from './accounts.ts';
import { refuseOverCap } from './caps.ts';

export interface ApiKeyRecord {
  id: number;
  accountId: number;
  scopes: string[];
}

/**
 * Creates an API key (AKe.…). The key is returned once; only its digest is stored. Refused with
 * `CapReached` when the account holds its cap of keys (call inside a transaction to make the
 * count and the insert one step: accounts/caps.ts).
 */
export async function createApiKey(
  q: Queryable,
  pepper: Buffer,
  accountId: number,
  scopes: string[],
): Promise<{ key: string; record: ApiKeyRecord }> {
  const unknown = scopes.filter((s) => !isKnownScope(s));
  if (unknown.length > 0) throw new AccountError(`unknown scope: ${unknown.join(' ')}`);
  if (scopes.length === 0) throw new AccountError('an API key needs at least one scope');
  await refuseOverCap(q, accountId, 'apiKeys');
  const key = newSecret(prefixes.apiKey);
  const rows = await q.query<{ id: number }>(
    'INSERT INTO api_keys (account_id, digest, scopes) VALUES ($1, $2, $3) RETURNING id',
    [accountId, digestSecret(pepper, key), scopes],
  );
  return { key, record: { id: rows[0]!.id, accountId, scopes } };
}

/** The id of the account's oldest live key of exactly these scopes newer than `afterId`, or null. */
export async function apiKeyMadeAfter(
  q: Queryable,
  accountId: number,
  afterId: number,
  scopes: string[],
): Promise<number | null> {
  const rows = await q.query<{ id: number }>(
    `SELECT id FROM api_keys
      WHERE account_id = $1 AND id > $2 AND revoked_at IS NULL AND scopes @> $3::text[] AND scopes <@ $3::text[]
      ORDER BY id LIMIT 1`,
    [accountId, afterId, scopes],
  );
  return rows[0]?.id ?? null;
}

/**
 * The live key with this digest, or null. A lookup records the key's last use when the recorded one
 * is a minute old or more (the time is shown to the minute; the authenticator also caches a key for
 * a short while between lookups), so a busy key does not write its row on every request.
 */
export async function findApiKeyByDigest(q: Queryable, digest: string): Promise<ApiKeyRecord | null> {
  const rows = await q.query<{ id: number; account_id: number; scopes: string[] }>(
    `WITH found AS (
       SELECT id, account_id, scopes, last_used_at FROM api_keys WHERE digest = $1 AND revoked_at IS NULL
     ), used AS (
       UPDATE api_keys SET last_used_at = now()
       WHERE id IN (SELECT id FROM found WHERE last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
     )
     SELECT id, account_id, scopes FROM found`,
    [digest],
  );
  const r = rows[0];
  return r ? { id: r.id, accountId: r.account_id, scopes: r.scopes } : null;
}

/** Revokes a key given its value. Returns whether a live key was revoked. */
export async function revokeApiKey(q: Queryable, pepper: Buffer, key: string): Promise<boolean> {
  const rows = await q.query(
    'UPDATE api_keys SET revoked_at = now() WHERE digest = $1 AND revoked_at IS NULL RETURNING id',
    [digestSecret(pepper, key)],
  );
  return rows.length > 0;
}

/** A key as the console lists it (never its value). */
export interface ApiKeyListItem {
  id: number;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** Keys on one page of the console's list. */
export const API_KEYS_PAGE = 50;

/**
 * One page of the account's live keys, newest first: those with an id below `beforeId` (the
 * cursor; none for the first page), and whether older ones follow.
 */
export async function listApiKeys(
  q: Queryable,
  accountId: number,
  beforeId: number | null = null,
): Promise<{ items: ApiKeyListItem[]; more: boolean }> {
  const rows = await q.query<{ id: number; scopes: string[]; created_at: Date; last_used_at: Date | null }>(
    `SELECT id, scopes, created_at, last_used_at FROM api_keys
      WHERE account_id = $1 AND revoked_at IS NULL AND ($2::bigint IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [accountId, beforeId, API_KEYS_PAGE + 1],
  );
  const items = rows.slice(0, API_KEYS_PAGE).map((r) => ({
    id: r.id,
    scopes: r.scopes,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
  }));
  return { items, more: rows.length > API_KEYS_PAGE };
}

/**
 * Revokes one of the account's keys by id. Returns its digest (to announce, so every process drops
 * it from its cache at once), or null when the account has no such live key.
 */
export async function revokeApiKeyById(q: Queryable, accountId: number, id: number): Promise<string | null> {
  const rows = await q.query<{ digest: string }>(
    `UPDATE api_keys SET revoked_at = now()
      WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING digest`,
    [id, accountId],
  );
  return rows[0]?.digest ?? null;
}
