/**
 * Pages of a derived list (the merged earthquake and early-warning lists) kept while no telegram is
 * committed: the projections change only in an ingest transaction, which always commits a new
 * telegram serial with them. The serial is the telegram cache's newest, so these pages are exactly
 * as current as the telegram list's (docs/realtime.md "Gap-free delivery"); a rebuild, which changes
 * projections without a new serial, shows within `maxAgeMs`.
 */
export interface SerialSource {
  /** The newest committed serial this process knows of. */
  readonly newestSerial: number;
  /** Changes when stored telegrams are removed (pruning): what was read before may show them. */
  readonly generation?: number;
}

interface Entry<V> {
  value: Promise<V>;
  at: number;
}

export class SerialTaggedCache<V> {
  private serial = -1;
  private generation: number | undefined;
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly source: SerialSource,
    private readonly options: { maxEntries: number; maxAgeMs: number },
  ) {}

  /** The page for `key`, read by `load` unless one read since the newest commit is held. */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const { newestSerial: serial, generation } = this.source;
    if (serial !== this.serial || generation !== this.generation) {
      this.entries.clear();
      this.serial = serial;
      this.generation = generation;
    }
    const now = Date.now();
    const held = this.entries.get(key);
    if (held && now - held.at < this.options.maxAgeMs) return held.value;
    if (this.entries.size >= this.options.maxEntries) this.entries.clear();
    // Callers that come while it is read share the read; a failed read is not kept.
    const entry: Entry<V> = { value: load(), at: now };
    this.entries.set(key, entry);
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.value;
  }
}
