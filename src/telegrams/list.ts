import type { Queryable } from '../db/types.ts';
import type { TelegramCache } from './cache.ts';
import type { PageRows } from './page-cache.ts';
import { queryTelegrams, type TelegramQuery } from './store.ts';

export interface TelegramPage extends PageRows {
  /** The newest serial this process knew of before reading: where polling may resume when nothing matched. */
  newestKnown: number;
}

/**
 * One page of a telegram list: from the in-memory cache when it covers the query (first pages and
 * polling), else from the database (deep pages, or filters matching little of the recent window);
 * a page asked again before it can change comes from the process's page cache (page-cache.ts).
 */
export async function readTelegramPage(
  db: Queryable,
  cache: TelegramCache,
  q: TelegramQuery,
): Promise<TelegramPage> {
  const newestKnown = cache.newestSerial;
  if (q.classifications.length === 0) return { items: [], truncated: false, newestKnown };
  const rows = await cache.pages.page(q, newestKnown, async () => {
    const probe = { ...q, limit: q.limit + 1 };
    const found = cache.query(probe) ?? (await queryTelegrams(db, probe));
    const truncated = found.length > q.limit;
    // Polling pages hold the lowest serials above the cursor; the extra row is then the newest one.
    const items = truncated ? (q.after !== undefined ? found.slice(1) : found.slice(0, q.limit)) : found;
    return { items, truncated };
  });
  return { ...rows, newestKnown };
}

/**
 * Where polling resumes after this page: the newest serial returned when the page was cut short,
 * else the newest serial known (nothing up to it was left out).
 */
export function pollingPosition(page: TelegramPage, after: number | undefined): number {
  const newestItem = page.items[0]?.serial ?? 0;
  if (after !== undefined && page.truncated) return newestItem;
  return Math.max(newestItem, page.newestKnown, after ?? 0);
}
