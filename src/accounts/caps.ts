import type { Queryable } from '../db/types.ts';
import { AccountError } from './accounts.ts';

/**
 * What one account may hold (docs/console.md "Limits"): live API keys and OAuth clients. Creation
 * over a cap is refused with `CapReached`; revoking or deleting one makes room again.
 */
export const accountCaps = { apiKeys: 100, oauthClients: 50 } as const;

export type CappedKind = keyof typeof accountCaps;

export class CapReached extends AccountError {
  constructor(
    readonly kind: CappedKind,
    readonly cap: number,
  ) {
    super(`the account holds ${cap} ${kind === 'apiKeys' ? 'API keys' : 'OAuth clients'}, its limit`);
  }
}

const COUNTS: Record<CappedKind, string> = {
  apiKeys: 'SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL',
  oauthClients: 'SELECT count(*)::int AS n FROM oauth_clients WHERE account_id = $1 AND revoked_at IS NULL',
};

/**
 * Throws `CapReached` when the account already holds its cap of `kind`. Inside a transaction it
 * first locks the account row, so concurrent creations for one account are counted one after the
 * other (the count after the lock sees what the others committed).
 */
export async function refuseOverCap(q: Queryable, accountId: number, kind: CappedKind): Promise<void> {
  await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  const rows = await q.query<{ n: number }>(COUNTS[kind], [accountId]);
  if (rows[0]!.n >= accountCaps[kind]) throw new CapReached(kind, accountCaps[kind]);
}

/** How many live `kind` the account holds (the dashboard's counts). */
export async function countHeld(q: Queryable, accountId: number, kind: CappedKind): Promise<number> {
  return (await q.query<{ n: number }>(COUNTS[kind], [accountId]))[0]!.n;
}
