import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { lockDataDir } from './lock-file.ts';
import type { Db, PoolWaitObserver } from './types.ts';

export interface DbSettings {
  /** postgres://… URL, or null for the embedded database in dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  poolSize: number;
  /** Told of every wait for a pooled connection (PostgreSQL). */
  onPoolWait?: PoolWaitObserver;
}

/** Where the embedded database keeps its files inside a data directory. */
export function embeddedDir(dataDir: string): string {
  return join(dataDir, 'pg');
}

/** Opens the configured database. The embedded one is locked to this process while open. */
export async function openDb(s: DbSettings): Promise<Db> {
  // Each engine is loaded only when used: PGlite's WebAssembly build is large to load.
  if (s.databaseUrl)
    return (await import('./postgres.ts')).openPostgres(s.databaseUrl, s.poolSize, s.onPoolWait);
  mkdirSync(s.dataDir, { recursive: true, mode: 0o700 });
  const release = lockDataDir(s.dataDir);
  try {
    // PGlite writes the database's files world-writable (0666) whatever the umask, and they hold
    // the generated secret and every account: the folder that holds them is the owner's alone.
    const pgDir = embeddedDir(s.dataDir);
    mkdirSync(pgDir, { recursive: true, mode: 0o700 });
    chmodSync(pgDir, 0o700);
    const { openPglite } = await import('./pglite.ts');
    const db = await openPglite(pgDir);
    return {
      ...db,
      async close() {
        try {
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
