import type { Clock } from '../clock.ts';

export interface FailureLimitOptions {
  /** Failures allowed per key within one window. */
  limit: number;
  windowMs: number;
  /** Keys tracked at most; the oldest are forgotten first, so memory stays bounded under any load. */
  maxKeys: number;
}

/**
 * Counts failed requests per key (an IP, or a client at an IP) in fixed windows. Once a key reaches
 * its limit, requests under it are refused until the window ends. Per process: with several
 * processes an attacker gets the limit once per process, which still bounds guessing.
 */
export class FailureLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly options: FailureLimitOptions,
    private readonly clock: Clock,
  ) {}

  /** Seconds to wait before any of `keys` may try again; 0 when none is blocked. */
  retryAfter(keys: readonly string[]): number {
    const now = this.clock.now();
    let wait = 0;
    for (const key of keys) {
      const w = this.windows.get(key);
      if (!w) continue;
      if (w.resetAt <= now) this.windows.delete(key);
      else if (w.count >= this.options.limit) wait = Math.max(wait, Math.ceil((w.resetAt - now) / 1000));
    }
    return wait;
  }

  /** Records one failure under each key. */
  fail(keys: readonly string[]): void {
    const now = this.clock.now();
    for (const key of keys) {
      const w = this.windows.get(key);
      if (w && w.resetAt > now) {
        w.count++;
        continue;
      }
      if (w) this.windows.delete(key);
      if (this.windows.size >= this.options.maxKeys) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) this.windows.delete(oldest);
      }
      this.windows.set(key, { count: 1, resetAt: now + this.options.windowMs });
    }
  }
}
