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

export interface KeptBudget<V> {
  /** Bound on the bytes of every value held, with its key (docs/operations.md "Memory"). */
  maxBytes: number;
  maxAgeMs: number;
  /** The bytes `value` holds (an upper estimate where not exact). */
  bytesOf: (value: V) => number;
}

/** A held entry's own cost beyond its key and value: the Map slot, the entry and its promise. */
const ENTRY_BYTES = 256;

interface Entry<V> {
  value: Promise<V>;
  at: number;
  /** Counted in `bytes`: ENTRY_BYTES and the key until the value is known, then the value too. */
  bytes: number;
}

export class SerialTaggedCache<V> {
  private serial = -1;
  private generation: number | undefined;
  /** Oldest first (a Map iterates in insertion order). */
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;

  constructor(
    private readonly source: SerialSource,
    private readonly budget: KeptBudget<V>,
  ) {}

  /** The bytes held now, by the budget's count. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** The page for `key`, read by `load` unless one read since the newest commit is held. */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const { newestSerial: serial, generation } = this.source;
    if (serial !== this.serial || generation !== this.generation) {
      this.entries.clear();
      this.bytes = 0;
      this.serial = serial;
      this.generation = generation;
    }
    const now = Date.now();
    const held = this.entries.get(key);
    if (held && now - held.at < this.budget.maxAgeMs) return held.value;
    if (held) this.forget(key, held);
    // Callers that come while it is read share the read; a failed read is not kept.
    const entry: Entry<V> = { value: load(), at: now, bytes: ENTRY_BYTES + key.length * 2 };
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    this.trim();
    entry.value.then(
      (value) => {
        if (this.entries.get(key) !== entry) return;
        const bytes = entry.bytes + this.budget.bytesOf(value);
        this.bytes += bytes - entry.bytes;
        entry.bytes = bytes;
        this.trim();
      },
      () => this.entries.get(key) === entry && this.forget(key, entry),
    );
    return entry.value;
  }

  private forget(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Drops the oldest entries until the budget holds (a value larger than the whole budget goes too). */
  private trim(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.budget.maxBytes) return;
      this.forget(key, entry);
    }
  }
}
