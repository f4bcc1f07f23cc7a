/**
 * A test database opened with its reads of "everything after serial N" (the telegram cache's
 * refresh, telegrams/cache.ts) counted: for tests of what is served from memory without a read.
 */
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import type { TestDatabase } from './database.ts';

export interface CountedDb {
  db: Db;
  /** Refresh reads since the database was opened or the count last reset. */
  reads: { count: number };
}

export async function openCountingCacheReads(database: TestDatabase): Promise<CountedDb> {
  const opened = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 4 });
  const reads = { count: 0 };
  const db: Db = {
    ...opened,
    query: (sql, params) => {
      if (/WHERE serial > \$1 ORDER BY serial/.test(sql)) reads.count++;
      return opened.query(sql, params);
    },
  };
  return { db, reads };
}
