import type { Clock } from '../../clock.ts';
import type { Queryable } from '../../db/types.ts';
import { FailureLimiter } from '../../security/failure-limiter.ts';

/**
 * Rate limit on open sign-up (docs/security.md "Sign-up"), shared by all processes through the
 * database: sign-ups per client address and in total, each in fixed one-hour windows, counted
 * before the account is created. Sign-ups by invitation are not counted: an administrator chose
 * each of them.
 */

const HOUR_MS = 3_600_000;
export const signupLimits = {
  perAddress: { limit: 5, windowMs: HOUR_MS },
  total: { limit: 100, windowMs: HOUR_MS },
} as const;

export class SignupLimiter {
  private readonly perAddress: FailureLimiter;
  private readonly total: FailureLimiter;

  constructor(db: Queryable, pepper: Buffer, clock: Clock) {
    this.perAddress = new FailureLimiter(db, pepper, 'signup-address', signupLimits.perAddress, clock);
    this.total = new FailureLimiter(db, pepper, 'signup-total', signupLimits.total, clock);
  }

  /**
   * Counts one sign-up from `address`; the seconds to wait when it is over a limit (0: go on). A
   * sign-up refused for its address does not count against the total, so one address cannot close
   * sign-up for everyone.
   */
  async take(address: string): Promise<number> {
    const wait = await this.perAddress.take([address]);
    return wait > 0 ? wait : this.total.take(['all']);
  }
}
