import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** Give up after this many milliseconds (default 5000). */
  timeout?: number;
  /** Pause between two checks (default 20 ms). */
  interval?: number;
  /** Named in the error when the time runs out. */
  message?: string;
}

/**
 * Checks `predicate` until it returns a truthy value and resolves with that value; rejects when
 * `timeout` passes first. For state that changes asynchronously (bus announcements, child
 * processes, timers of another process), where there is no event to await.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  { timeout = 5_000, interval = 20, message = 'condition' }: WaitOptions = {},
): Promise<NonNullable<T>> {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await predicate();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${message}`);
    await sleep(interval);
  }
}
