import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/types.ts';
import { digestSecret } from '../security/secrets.ts';

/**
 * Rate limit on password sign-in, shared by all processes through the database. Each attempt is
 * counted before the password is checked (so parallel guesses cannot slip past the count), per
 * e-mail address and per client IP, in fixed windows; a successful sign-in gives its attempt back.
 */

export interface SigninLimits {
  windowMs: number;
  perEmail: number;
  perIp: number;
}

export const defaultSigninLimits: SigninLimits = { windowMs: 15 * 60_000, perEmail: 10, perIp: 50 };

function keyDigests(pepper: Buffer, email: string, ip: string): { email: string; ip: string } {
  return {
    email: digestSecret(pepper, `signin:email:${email.toLowerCase()}`),
    ip: digestSecret(pepper, `signin:ip:${ip}`),
  };
}

/**
 * Counts one attempt. Returns 0 when it may proceed, else the milliseconds until the window that
 * blocks it ends (for Retry-After).
 */
export async function countSigninAttempt(
  q: Queryable,
  pepper: Buffer,
  clock: Clock,
  limits: SigninLimits,
  email: string,
  ip: string,
): Promise<number> {
  const keys = keyDigests(pepper, email, ip);
  const now = clock.now();
  const windowOpenedAfter = new Date(now - limits.windowMs);
  await q.query('DELETE FROM signin_attempts WHERE window_start <= $1', [windowOpenedAfter]);
  const rows = await q.query<{ key_digest: string; window_start: Date; attempts: number }>(
    `INSERT INTO signin_attempts (key_digest, window_start, attempts)
       SELECT k, $2, 1 FROM unnest($1::text[]) AS k
     ON CONFLICT (key_digest) DO UPDATE SET
       attempts = CASE WHEN signin_attempts.window_start <= $3 THEN 1 ELSE signin_attempts.attempts + 1 END,
       window_start = CASE WHEN signin_attempts.window_start <= $3 THEN $2 ELSE signin_attempts.window_start END
     RETURNING key_digest, window_start, attempts`,
    [[keys.email, keys.ip], new Date(now), windowOpenedAfter],
  );
  let wait = 0;
  for (const row of rows) {
    const max = row.key_digest === keys.email ? limits.perEmail : limits.perIp;
    if (row.attempts > max) wait = Math.max(wait, row.window_start.getTime() + limits.windowMs - now);
  }
  return wait;
}

/** After a successful sign-in: the address starts afresh and the IP gets its attempt back. */
export async function forgiveSigninAttempt(
  q: Queryable,
  pepper: Buffer,
  email: string,
  ip: string,
): Promise<void> {
  const keys = keyDigests(pepper, email, ip);
  await q.query('DELETE FROM signin_attempts WHERE key_digest = $1', [keys.email]);
  await q.query('UPDATE signin_attempts SET attempts = attempts - 1 WHERE key_digest = $1 AND attempts > 0', [
    keys.ip,
  ]);
}
