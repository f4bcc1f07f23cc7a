import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.ts';

export interface FailureLimitOptions {
  /** Failures allowed per key within one window. */
  limit: number;
  windowMs: number;
  /** Keys tracked at most; the least recently used are forgotten first, so memory stays bounded. */
  maxKeys: number;
}

/**
 * Counts failed requests per key (an IP, or a client at an IP) in fixed windows. Once a key reaches
 * its limit, requests under it are refused until the window ends. Per process: with several
 * processes an attacker gets the limit once per process, which still bounds guessing.
 */
export class FailureLimiter {
  private readonly windows: LRUCache<string, { count: number; resetAt: number }>;

  constructor(
    private readonly options: FailureLimitOptions,
    private readonly clock: Clock,
  ) {
    this.windows = new LRUCache({ max: options.maxKeys });
  }

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
      this.windows.set(key, { count: 1, resetAt: now + this.options.windowMs });
    }
  }
}
