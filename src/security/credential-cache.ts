import { LRUCache } from 'lru-cache';

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
    this.entries = new LRUCache({ max: maxEntries });
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
