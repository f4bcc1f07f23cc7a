/**
 * The operator's connection limit of an account (docs/operations.md "Connection limits"): when set,
 * it replaces the count of simultaneous WebSocket connections and streams that the account's plans
 * give (contracts.ts `connectionLimit`); cleared, the plans' count applies again.
 */
import type { Queryable } from '../db/types.ts';

/** The largest limit an operator may set (the column's check says the same). */
export const MAX_CONNECTION_LIMIT = 1_000_000;
/** The word that clears an operator's limit. */
export const DEFAULT_LIMIT_WORD = 'default';

export type ConnectionLimitInput = { ok: true; limit: number | null } | { ok: false; message: string };

/**
 * A limit as an operator types it: a whole number from 0 to 1,000,000 (0: no connection at all),
 * or `default` to go back to the plans' count.
 */
export function parseConnectionLimit(raw: string): ConnectionLimitInput {
  const value = raw.trim();
  if (value.toLowerCase() === DEFAULT_LIMIT_WORD) return { ok: true, limit: null };
  if (/^\d{1,7}$/.test(value) && Number(value) <= MAX_CONNECTION_LIMIT)
    return { ok: true, limit: Number(value) };
  return {
    ok: false,
    message: `the connection limit is a whole number from 0 to ${MAX_CONNECTION_LIMIT}, or "${DEFAULT_LIMIT_WORD}"`,
  };
}

/** Sets (a number) or clears (null) the account's limit; false when there is no such account. */
export async function setConnectionLimit(
  q: Queryable,
  accountId: number,
  limit: number | null,
): Promise<boolean> {
  const rows = await q.query('UPDATE accounts SET connection_limit = $2 WHERE id = $1 RETURNING id', [
    accountId,
    limit,
  ]);
  return rows.length > 0;
}
