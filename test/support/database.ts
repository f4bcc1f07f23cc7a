import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import type { Db } from '../../src/db/types.ts';
import { openDb } from '../../src/db/open.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';

/** PostgreSQL server for tests, when set (CI sets it); otherwise tests use PGlite. */
export const testDatabaseUrl = process.env.NAMAZU_TEST_DATABASE_URL || null;

export interface TestDatabase {
  /** postgres://… of a fresh database, or null for PGlite. */
  databaseUrl: string | null;
  /** A fresh data directory (PGlite's home when databaseUrl is null). */
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * The test databases' shared buffers, instead of the engine's 128 MB: the engine zeroes them each
 * time it opens, in WebAssembly, about 0.2 s of CPU per test database at 128 MB (a few hundred are
 * opened in a run of the suite). A test database holds a few MB.
 */
const TEST_PGLITE_SETTINGS = 'shared_buffers = 16MB\n';

/**
 * Names the templates below after the migrations' content and how the embedded one is made (the
 * settings above, no template databases), so a change of either makes new ones.
 */
function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const m of listMigrations()) hash.update(m.name).update(m.sql);
  hash.update(TEST_PGLITE_SETTINGS).update('without template databases');
  return hash.digest('hex').slice(0, 16);
}

/**
 * A migrated PGlite directory to copy: creating a PGlite cluster takes seconds, copying one takes
 * milliseconds. Without the cluster's template databases, which the embedded engine never uses:
 * they were half its files and a third of its bytes, copied and removed for every test database.
 */
async function pgliteTemplate(): Promise<string> {
  const dir = join(tmpdir(), `namazu-test-template-${migrationsHash()}`);
  if (existsSync(join(dir, 'pg', 'PG_VERSION'))) return dir;
  const work = mkdtempSync(join(tmpdir(), 'namazu-template-build-'));
  const db = await openPglite(join(work, 'pg'));
  await migrate(db);
  for (const template of ['template0', 'template1']) {
    await db.exec(`ALTER DATABASE ${template} IS_TEMPLATE false`);
    await db.exec(`DROP DATABASE ${template}`); // alone: not in a transaction
  }
  await db.close();
  appendFileSync(join(work, 'pg', 'postgresql.conf'), TEST_PGLITE_SETTINGS);
  try {
    renameSync(work, dir);
  } catch {
    // another test process made it first
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

/**
 * Fills `dataDir` with a migrated embedded database, whatever engine the tests run on: for tests of
 * `namazu` on an embedded data directory that do not test the directory's creation itself.
 */
export async function migratedDataDir(dataDir: string): Promise<void> {
  cpSync(await pgliteTemplate(), dataDir, { recursive: true });
}

/** postgres://… of `database` on the test server. */
function databaseUrl(database: string): string {
  const url = new URL(testDatabaseUrl!);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * A migrated PostgreSQL database to create test databases from (CREATE DATABASE … TEMPLATE):
 * copying one takes a tenth of the time migrating one takes. `admin` is connected to another database.
 */
async function postgresTemplate(admin: pg.Client): Promise<string> {
  const template = `namazu_test_template_${migrationsHash()}`;
  const exists = async () =>
    ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template])).rowCount ?? 0) > 0;
  if (await exists()) return template;
  const build = `namazu_test_build_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${build}`);
  const db = await openPostgres(databaseUrl(build), 1);
  await migrate(db);
  await db.close();
  try {
    await admin.query(`ALTER DATABASE ${build} RENAME TO ${template}`);
  } catch (err) {
    // another test process made it first
    await admin.query(`DROP DATABASE IF EXISTS ${build} WITH (FORCE)`);
    if (!(await exists())) throw err;
  }
  return template;
}

/** A new, empty, migrated database for one test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'namazu-test-'));
  if (!testDatabaseUrl) {
    await migratedDataDir(dataDir);
    return {
      databaseUrl: null,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `namazu_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${await postgresTemplate(admin)}`);
  } finally {
    await admin.end();
  }
  return {
    databaseUrl: databaseUrl(name),
    dataDir,
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: testDatabaseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestDb {
  db: Db;
  close(): Promise<void>;
}

/**
 * A new migrated database opened as the server opens it (`openDb`, a pool of 4 on PostgreSQL), for
 * tests of the stores without a server; `close` closes it and drops the database.
 */
export async function openTestDb(): Promise<TestDb> {
  const database = await createTestDatabase();
  const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 4 });
  return {
    db,
    async close() {
      await db.close();
      await database.drop();
    },
  };
}
