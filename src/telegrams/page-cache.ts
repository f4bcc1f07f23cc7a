import type { TelegramQuery, TelegramSummary } from './store.ts';

/** The rows of one page of a telegram list. */
export interface PageRows {
  /** Newest first. The same array for every request answered from memory. */
  readonly items: readonly TelegramSummary[];
  /** More telegrams exist beyond the page in the direction read (older, or newer when polling). */
  readonly truncated: boolean;
}

/** Pages held, and rows in them (a page counts at least one). */
const MAX_PAGES = 4_096;
const MAX_ROWS = 20_000;

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
  private readonly pages = new Map<string, { page: Promise<PageRows>; rows: number }>();
  private rows = 0;
  /** Bumped by clear(): a read that started before a clear is not kept. */
  private clears = 0;

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
    this.remember(key, { page, rows: 1 });
    page.then(
      (p) => {
        const entry = this.pages.get(key);
        if (entry?.page !== page) return;
        if (generation !== this.clears) return this.forget(key);
        this.rows += Math.max(1, p.items.length) - entry.rows;
        entry.rows = Math.max(1, p.items.length);
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
    this.rows = 0;
  }

  private remember(key: string, entry: { page: Promise<PageRows>; rows: number }): void {
    this.pages.set(key, entry);
    this.rows += entry.rows;
    this.trim();
  }

  private forget(key: string): void {
    const entry = this.pages.get(key);
    if (!entry) return;
    this.pages.delete(key);
    this.rows -= entry.rows;
  }

  private trim(): void {
    for (const [oldest, entry] of this.pages) {
      if (this.rows <= MAX_ROWS && this.pages.size <= MAX_PAGES) break;
      this.pages.delete(oldest);
      this.rows -= entry.rows;
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
