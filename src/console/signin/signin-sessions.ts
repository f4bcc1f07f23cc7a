import type { Clock } from '../../clock.ts';
import type { Queryable } from '../../db/types.ts';
import { digestSecret, newSecret } from '../../security/secrets.ts';

/** Sign-in sessions of the web pages. The cookie holds the secret; the table only its digest. */

export const SESSION_TTL_MS = 12 * 3600_000;

export interface WebSession {
  accountId: number;
  /** Digest of the cookie value: the session's identity in the database and for CSRF tokens. */
  digest: string;
}

export async function createSession(
  q: Queryable,
  pepper: Buffer,
  clock: Clock,
  accountId: number,
): Promise<{ token: string; session: WebSession; expiresAt: Date }> {
  const token = newSecret('');
  const digest = digestSecret(pepper, token);
  const now = clock.now();
  const expiresAt = new Date(now + SESSION_TTL_MS);
  // Expired sessions are swept here, at the rare moment a new one is made.
  await q.query('DELETE FROM web_sessions WHERE expires_at <= $1', [new Date(now)]);
  await q.query(
    'INSERT INTO web_sessions (digest, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
    [digest, accountId, new Date(now), expiresAt],
  );
  return { token, session: { accountId, digest }, expiresAt };
}

/** The live session a cookie value names, or null (unknown, expired, or malformed value). */
export async function findSession(
  q: Queryable,
  pepper: Buffer,
  clock: Clock,
  token: string,
): Promise<WebSession | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const digest = digestSecret(pepper, token);
  const rows = await q.query<{ account_id: number }>(
    'SELECT account_id FROM web_sessions WHERE digest = $1 AND expires_at > $2',
    [digest, new Date(clock.now())],
  );
  return rows[0] ? { accountId: rows[0].account_id, digest } : null;
}

export async function deleteSession(q: Queryable, digest: string): Promise<void> {
  await q.query('DELETE FROM web_sessions WHERE digest = $1', [digest]);
}

/** Ends every session of the account but `keepDigest` (after a password change). */
export async function deleteOtherSessions(
  q: Queryable,
  accountId: number,
  keepDigest: string,
): Promise<void> {
  await q.query('DELETE FROM web_sessions WHERE account_id = $1 AND digest <> $2', [accountId, keepDigest]);
}

/** Which of these session digests still name a live session (long-lived pages end with theirs). */
export async function liveSessionDigests(
  q: Queryable,
  clock: Clock,
  digests: readonly string[],
): Promise<Set<string>> {
  if (digests.length === 0) return new Set();
  const rows = await q.query<{ digest: string }>(
    'SELECT digest FROM web_sessions WHERE digest = ANY($1::text[]) AND expires_at > $2',
    [digests as string[], new Date(clock.now())],
  );
  return new Set(rows.map((r) => r.digest));
}
