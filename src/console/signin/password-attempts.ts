import type { FastifyReply, FastifyRequest } from 'fastify';
import { countSigninAttempt, defaultSigninLimits, forgiveSigninAttempt } from './signin-limits.ts';
import type { AppContext } from '../../context.ts';
import { addressGroup } from '../../http/client-address.ts';

/** What a password attempt may do: refused for `retryAfter` seconds (0: not refused), else go on after `delayMs`. */
export interface PasswordAttempt {
  retryAfter: number;
  delayMs: number;
}

/**
 * Counts a password attempt for `email` from the request's address against the sign-in limits
 * (docs/security.md "Sign-in"): the sign-in form and the password change form, where guessing the
 * current password is guessing a password. A refused attempt's answer carries `Retry-After`.
 */
export async function countPasswordAttempt(
  ctx: Pick<AppContext, 'db' | 'pepper' | 'clock'>,
  request: FastifyRequest,
  reply: FastifyReply,
  email: string,
): Promise<PasswordAttempt> {
  const verdict = await countSigninAttempt(
    ctx.db,
    ctx.pepper,
    ctx.clock,
    defaultSigninLimits,
    email,
    addressGroup(request.ip),
  );
  const retryAfter = Math.ceil(verdict.waitMs / 1000);
  if (retryAfter > 0) reply.header('retry-after', String(retryAfter));
  return { retryAfter, delayMs: verdict.delayMs };
}

/** After the right password: the attempt is forgiven (signin-limits.ts `forgiveSigninAttempt`). */
export function forgivePasswordAttempt(
  ctx: Pick<AppContext, 'db' | 'pepper'>,
  request: FastifyRequest,
  email: string,
): Promise<void> {
  return forgiveSigninAttempt(ctx.db, ctx.pepper, email, addressGroup(request.ip));
}
