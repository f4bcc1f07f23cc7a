import { createHash } from 'node:crypto';
import type { Queryable } from '../db/types.ts';
import { DPOP_IAT_WINDOW_S } from './dpop.ts';

/**
 * Records a proof's `jti` for as long as the proof could be accepted. Returns false when the same
 * key already used that `jti`: the primary key makes this atomic across every server process that
 * shares the database.
 */
export async function recordProofJti(q: Queryable, jkt: string, jti: string, iat: number): Promise<boolean> {
  const digest = createHash('sha256').update(`${jkt}\n${jti}`).digest('hex');
  // A proof is acceptable until the server clock passes iat + window; keep its id one second longer.
  const expiresAt = new Date((iat + DPOP_IAT_WINDOW_S + 1) * 1000);
  const rows = await q.query(
    'INSERT INTO dpop_proofs (jti_digest, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1',
    [digest, expiresAt],
  );
  return rows.length === 1;
}

/** Deletes proof ids whose acceptance window has closed. */
export async function pruneProofJtis(q: Queryable, now: number): Promise<number> {
  const rows = await q.query('DELETE FROM dpop_proofs WHERE expires_at < $1 RETURNING 1', [new Date(now)]);
  return rows.length;
}
