import { loadConfig, type Config } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { openDb } from '../db/open.ts';
import type { Db } from '../db/types.ts';
import { loadPepper } from '../security/pepper.ts';
import { configFlags } from './args.ts';

export interface AdminSession {
  config: Config;
  db: Db;
  pepper: Buffer;
}

/**
 * Runs an admin command against the configured database (migrated first), closing it afterwards.
 * The embedded database is locked while a server runs on it: stop the server, or use PostgreSQL.
 */
export async function withDatabase<T>(
  values: Record<string, unknown>,
  fn: (s: AdminSession) => Promise<T>,
): Promise<T> {
  const config = loadConfig(process.env, configFlags(values, ['data-dir', 'database-url']));
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    await migrate(db);
    return await fn({ config, db, pepper: await loadPepper(db, config.secret) });
  } finally {
    await db.close();
  }
}
