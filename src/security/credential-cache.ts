import { LRUCache } from 'lru-cache';

/**
 * A least-recently-used map of at most `maxEntries` that allocates as it fills. Given `max`,
 * lru-cache allocates its arrays for all entries up front: 1.5 MB and 15–20 ms for 100,000, paid at
 * every start by caches that mostly hold a few entries. Bounded by size instead (each entry counts
 * one), it evicts the same way and grows its arrays as entries come.
 */
export function growingLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  maxEntries: number,
): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: maxEntries, sizeCalculation: () => 1 });
}

/**
 * A bounded map of recently checked credentials (digest → value) with a time to live, so the hot
 * path of the data API does not touch the database for every request. docs/api-contract.md
 * "Credentials" allows a revoked credential to keep working for up to 60 s on the
 * disaster-information endpoints; revocations announced on the bus delete entries at once.
 */
export class CredentialCache<V> {
  // lru-cache bounds memory; expiry stays here because an entry must count as expired at exactly
  // its deadline (lru-cache keeps an entry one millisecond longer).
  private readonly entries: LRUCache<string, { value: V; expires: number }>;

  constructor(
    private readonly ttlMs: number,
    maxEntries: number,
    private readonly now: () => number,
  ) {
    this.entries = growingLru(maxEntries);
  }

  get(digest: string): V | undefined {
    const e = this.entries.get(digest);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.entries.delete(digest);
      return undefined;
    }
    return e.value;
  }

  set(digest: string, value: V, notAfter = Infinity): void {
    this.entries.set(digest, { value, expires: Math.min(this.now() + this.ttlMs, notAfter) });
  }

  delete(digest: string): void {
    this.entries.delete(digest);
  }

  clear(): void {
    this.entries.clear();
  }
}
