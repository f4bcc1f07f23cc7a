import type { TelegramQuery, TelegramSummary } from './store.ts';
import { summaryBytes } from './summary-bytes.ts';

/** The rows of one page of a telegram list. */
export interface PageRows {
  /** Newest first. The same array for every request answered from memory. */
  readonly items: readonly TelegramSummary[];
  /** More telegrams exist beyond the page in the direction read (older, or newer when polling). */
  readonly truncated: boolean;
}

/** Pages held at most. */
const MAX_PAGES = 4_096;
/** Bound on the bytes of the pages held, by summaryBytes (docs/operations.md "Memory"). */
export const PAGE_CACHE_BYTES = 32 * 1024 * 1024;
/** A page's own cost beyond its rows (its key, entry and arrays); also what a page counts while read. */
const PAGE_BYTES = 512;

/**
 * The answers of recent list queries. A query's answer depends only on the query and on which
 * telegrams are stored, and serials become visible in increasing order (ingest holds a lock to
 * COMMIT), so the newest serial this process knows of names the stored set, up to pruning:
 * - a page whose every possible serial is at or below that newest serial (an older page under a
 *   cursor, a full polling page behind it) is *fixed*: no later commit changes it;
 * - any other page (a first page, a polling page at the top) holds until a newer telegram is known.
 * Pruning changes both: the owner clears the cache on every prune announcement (`clear`).
 *
 * Many clients ask the same pages: hundreds of apps poll the top with the same filters, and after an
 * outage they page back from the newest telegram along the same cursors. Concurrent requests for a
 * page share one read; later ones get the same items array, whose serialised form the surfaces keep
 * with it (docs/data-api.md "Pages kept in memory").
 */
export class PageCache {
  /** Least recently used first (a Map iterates in insertion order); values settle to pages. */
  private readonly pages = new Map<string, { page: Promise<PageRows>; bytes: number }>();
  private bytes = 0;
  /** Bumped by clear(): a read that started before a clear is not kept. */
  private clears = 0;

  constructor(private readonly maxBytes = PAGE_CACHE_BYTES) {}

  /** The bytes held now, by summaryBytes. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** The page of `q` known at `newestKnown`, from memory when read before; `read` reads it otherwise. */
  page(q: TelegramQuery, newestKnown: number, read: () => Promise<PageRows>): Promise<PageRows> {
    const query = pageKey(q);
    const fixed = isFixed(q, newestKnown);
    const key = fixed ? query : `${query}@${newestKnown}`;
    const held = this.pages.get(key);
    if (held) {
      this.pages.delete(key);
      this.pages.set(key, held);
      return held.page;
    }
    const generation = this.clears;
    const page = read();
    this.remember(key, { page, bytes: PAGE_BYTES + key.length * 2 });
    page.then(
      (p) => {
        const entry = this.pages.get(key);
        if (entry?.page !== page) return;
        if (generation !== this.clears) return this.forget(key);
        let bytes = entry.bytes;
        for (const row of p.items) bytes += summaryBytes(row);
        this.bytes += bytes - entry.bytes;
        entry.bytes = bytes;
        this.trim();
      },
      () => this.pages.get(key)?.page === page && this.forget(key),
    );
    return page;
  }

  /** How many times every page was forgotten: what was derived from a page before is stale after. */
  get generation(): number {
    return this.clears;
  }

  /** Forgets every page (telegrams were pruned). */
  clear(): void {
    this.clears++;
    this.pages.clear();
    this.bytes = 0;
  }

  private remember(key: string, entry: { page: Promise<PageRows>; bytes: number }): void {
    this.pages.set(key, entry);
    this.bytes += entry.bytes;
    this.trim();
  }

  private forget(key: string): void {
    const entry = this.pages.get(key);
    if (!entry) return;
    this.pages.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Forgets the least recently used pages until both bounds hold (a page over the whole budget goes too). */
  private trim(): void {
    for (const [oldest, entry] of this.pages) {
      if (this.bytes <= this.maxBytes && this.pages.size <= MAX_PAGES) break;
      this.pages.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }
}

/** An older page whose every possible serial is at or below the newest known one. */
const isFixed = (q: TelegramQuery, newestKnown: number) =>
  q.before !== undefined && q.after === undefined && q.before - 1 <= newestKnown;

/** Everything of a query that decides its rows. */
function pageKey(q: TelegramQuery): string {
  return JSON.stringify([
    q.classifications,
    q.types ?? null,
    q.test,
    q.formats ?? null,
    q.receivedFrom?.getTime() ?? null,
    q.receivedBefore?.getTime() ?? null,
    q.before ?? null,
    q.after ?? null,
    q.limit,
    q.withXmlReport ?? true,
  ]);
}
