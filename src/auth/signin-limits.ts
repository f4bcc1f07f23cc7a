import { normalizeEmail } from '../accounts/accounts.ts';
import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/types.ts';
import { digestSecret } from '../security/secrets.ts';

/**
 * Rate limit on password sign-in, shared by all processes through the database. Each attempt is
 * counted before the password is checked (so parallel guesses cannot slip past the count), in
 * fixed windows, under three keys: the client IP, the pair (IP × account) and the account. The IP
 * and the pair are refused over their limits; the account never is — over its limit each attempt
 * is slowed by a delay that doubles, so an attack from many addresses is slowed while the owner,
 * from an address that has not failed, still signs in with the right password (docs/security.md).
 * A successful sign-in clears the pair and the account and gives the IP its attempt back.
 */

export interface SigninLimits {
  windowMs: number;
  /** Attempts per (IP × account) in a window, then refused. */
  perAddressAndAccount: number;
  /** Attempts per IP (any account) in a window, then refused. */
  perIp: number;
  /** Attempts per account (any IP) in a window before each further one is delayed. */
  perAccount: number;
  /** The first delay over `perAccount`; it doubles with each further attempt up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultSigninLimits: SigninLimits = {
  windowMs: 15 * 60_000,
  perAddressAndAccount: 10,
  perIp: 50,
  perAccount: 10,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
};

/** What an attempt may do: refused for `waitMs` (0 = not refused), else go on after `delayMs`. */
export interface SigninVerdict {
  waitMs: number;
  delayMs: number;
}

function keyDigests(pepper: Buffer, email: string, ip: string) {
  const account = normalizeEmail(email);
  return {
    pair: digestSecret(pepper, `signin:pair:${ip} ${account}`),
    account: digestSecret(pepper, `signin:email:${account}`),
    ip: digestSecret(pepper, `signin:ip:${ip}`),
  };
}

/** Counts one attempt under each key and says whether it is refused or slowed. */
export async function countSigninAttempt(
  q: Queryable,
  pepper: Buffer,
  clock: Clock,
  limits: SigninLimits,
  email: string,
  ip: string,
): Promise<SigninVerdict> {
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
    [[keys.pair, keys.account, keys.ip], new Date(now), windowOpenedAfter],
  );
  const verdict: SigninVerdict = { waitMs: 0, delayMs: 0 };
  for (const row of rows) {
    if (row.key_digest === keys.account) {
      const over = row.attempts - limits.perAccount;
      if (over > 0)
        verdict.delayMs = Math.min(limits.maxDelayMs, limits.baseDelayMs * 2 ** Math.min(over - 1, 30));
      continue;
    }
    const max = row.key_digest === keys.pair ? limits.perAddressAndAccount : limits.perIp;
    const ends = row.window_start.getTime() + limits.windowMs - now;
    if (row.attempts > max) verdict.waitMs = Math.max(verdict.waitMs, ends);
  }
  return verdict;
}

/** After a successful sign-in: the pair and the account start afresh, the IP gets its attempt back. */
export async function forgiveSigninAttempt(
  q: Queryable,
  pepper: Buffer,
  email: string,
  ip: string,
): Promise<void> {
  const keys = keyDigests(pepper, email, ip);
  await q.query('DELETE FROM signin_attempts WHERE key_digest = ANY($1::text[])', [
    [keys.pair, keys.account],
  ]);
  await q.query('UPDATE signin_attempts SET attempts = attempts - 1 WHERE key_digest = $1 AND attempts > 0', [
    keys.ip,
  ]);
}
