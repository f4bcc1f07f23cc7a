/**
 * A bounded map of recently checked credentials (digest → value) with a time to live, so the hot
 * path of the data API does not touch the database for every request. docs/api-contract.md
 * "Credentials" allows a revoked credential to keep working for up to 60 s on the
 * disaster-information endpoints; revocations announced on the bus delete entries at once.
 */
export class CredentialCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

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
    if (this.entries.size >= this.maxEntries) {
      // Drop the oldest insertion (Map keeps insertion order): bounded memory under any load.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(digest, { value, expires: Math.min(this.now() + this.ttlMs, notAfter) });
  }

  delete(digest: string): void {
    this.entries.delete(digest);
  }

  clear(): void {
    this.entries.clear();
  }
}
