// An account for a bench's clients: every plan contracted, an API key with the given scopes, and
// optionally an operator's connection limit (`namazu account limit`).
import { createAccount } from '../src/accounts/accounts.ts';
import { createApiKey } from '../src/accounts/api-keys.ts';
import { setConnectionLimit } from '../src/accounts/connection-limit.ts';
import { addContract } from '../src/accounts/contracts.ts';
import { plans } from '../src/accounts/plans.ts';
import type { Db } from '../src/db/types.ts';

export interface BenchAccount {
  id: number;
  /** The API key as a Basic authorization header. */
  authorization: string;
}

export async function createBenchAccount(
  db: Db,
  pepper: Buffer,
  email: string,
  scopes: string[],
  connectionLimit?: number,
): Promise<BenchAccount> {
  const account = await createAccount(db, { email, password: 'bench-password' });
  for (const p of plans) await addContract(db, account.id, p.classification);
  if (connectionLimit !== undefined) await setConnectionLimit(db, account.id, connectionLimit);
  const { key } = await createApiKey(db, pepper, account.id, scopes);
  return { id: account.id, authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
}
