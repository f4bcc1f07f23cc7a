// A throwaway PostgreSQL database for one bench run: created from the administrator's URL,
// migrated and opened with its pepper; `drop()` closes it and removes it at the end of the run.
import { tmpdir } from 'node:os';
import pg from 'pg';
import { migrate } from '../src/db/migrate.ts';
import { openDb } from '../src/db/open.ts';
import type { Db } from '../src/db/types.ts';
import { loadPepper } from '../src/security/pepper.ts';

export interface BenchDatabase {
  databaseUrl: string;
  db: Db;
  pepper: Buffer;
  drop(): Promise<void>;
}

export async function createBenchDatabase(
  adminUrl: string,
  name: string,
  secret: string,
): Promise<BenchDatabase> {
  const dbName = `${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const db = await openDb({ databaseUrl, dataDir: tmpdir(), poolSize: 8 });
  await migrate(db);
  const pepper = await loadPepper(db, secret);
  return {
    databaseUrl,
    db,
    pepper,
    async drop() {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    },
  };
}
