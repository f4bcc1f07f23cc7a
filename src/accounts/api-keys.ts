import type { Queryable } from '../db/types.ts';
import { isKnownScope } from '../auth/scopes.ts';
import { digestSecret, newSecret, prefixes } from '../security/secrets.ts';
import { AccountError } from './accounts.ts';

export interface ApiKeyRecord {
  id: number;
  accountId: number;
  scopes: string[];
}

/** Creates an API key (AKe.…). The key is returned once; only its digest is stored. */
export async function createApiKey(
  q: Queryable,
  pepper: Buffer,
  accountId: number,
  scopes: string[],
): Promise<{ key: string; record: ApiKeyRecord }> {
  const unknown = scopes.filter((s) => !isKnownScope(s));
  if (unknown.length > 0) throw new AccountError(`unknown scope: ${unknown.join(' ')}`);
  if (scopes.length === 0) throw new AccountError('an API key needs at least one scope');
  const key = newSecret(prefixes.apiKey);
  const rows = await q.query<{ id: number }>(
    'INSERT INTO api_keys (account_id, digest, scopes) VALUES ($1, $2, $3) RETURNING id',
    [accountId, digestSecret(pepper, key), scopes],
  );
  return { key, record: { id: rows[0]!.id, accountId, scopes } };
}

/** The live key with this digest, or null. */
export async function findApiKeyByDigest(q: Queryable, digest: string): Promise<ApiKeyRecord | null> {
  const rows = await q.query<{ id: number; account_id: number; scopes: string[] }>(
    'SELECT id, account_id, scopes FROM api_keys WHERE digest = $1 AND revoked_at IS NULL',
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
