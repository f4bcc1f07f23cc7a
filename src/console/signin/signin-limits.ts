import { normalizeEmail } from '../../accounts/accounts.ts';
import type { Clock } from '../../clock.ts';
import type { Queryable } from '../../db/types.ts';
import { FixedWindows, overLimitFor } from '../../security/fixed-windows.ts';

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

/** The three keys an attempt counts under (docs/security.md "Sign-in"). */
function signinKeys(email: string, ip: string) {
  const account = normalizeEmail(email);
  return { pair: `pair:${ip} ${account}`, account: `email:${account}`, ip: `ip:${ip}` };
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
  const keys = signinKeys(email, ip);
  const now = clock.now();
  const windows = new FixedWindows(q, pepper, 'signin_attempts');
  const counted = await windows.add([keys.pair, keys.account, keys.ip], limits.windowMs, now);
  const over = counted.get(keys.account)!.count - limits.perAccount;
  return {
    waitMs: Math.max(
      overLimitFor(counted.get(keys.pair)!, limits.perAddressAndAccount, now, limits.windowMs),
      overLimitFor(counted.get(keys.ip)!, limits.perIp, now, limits.windowMs),
    ),
    delayMs: over > 0 ? Math.min(limits.maxDelayMs, limits.baseDelayMs * 2 ** Math.min(over - 1, 30)) : 0,
  };
}

/** After a successful sign-in: the pair and the account start afresh, the IP gets its attempt back. */
export async function forgiveSigninAttempt(
  q: Queryable,
  pepper: Buffer,
  email: string,
  ip: string,
): Promise<void> {
  const keys = signinKeys(email, ip);
  const windows = new FixedWindows(q, pepper, 'signin_attempts');
  await windows.clear([keys.pair, keys.account]);
  await windows.subtract(keys.ip);
}
