/**
 * namazu backup FILE / namazu restore FILE (docs/operations.md, "Backup and restore"). The backup
 * runs beside a serving server: on the embedded database inside that server (its admin channel), on
 * PostgreSQL through pg_dump. A restore needs an empty target and no server on it.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { loadConfig } from '../config.ts';
import { backupKind, BackupError, BACKUP_FORMAT } from '../db/backup-format.ts';
import { backupPglite, restorePglite } from '../db/backup-pglite.ts';
import { assertEmptyDatabase, backupPostgres, restorePostgres } from '../db/backup-postgres.ts';
import { dataDirHolder, lockDataDir } from '../db/lock-file.ts';
import { embeddedDir } from '../db/open.ts';
import { openPglite } from '../db/pglite.ts';
import { openPostgres } from '../db/postgres.ts';
import type { Queryable } from '../db/types.ts';
import { configFlags, databaseFlags, parseFlags, printJson } from './args.ts';
import { usageError } from './usage.ts';
import type { CommandIo } from './database.ts';

const migrationsOf = async (q: Queryable) =>
  (await q.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).map((r) => r.name);

function oneFile(argv: string[], command: 'backup' | 'restore', cwd: string) {
  const { values, positionals } = parseFlags(argv, databaseFlags, true);
  if (positionals.length !== 1 || positionals[0] === '') throw usageError(command);
  return { values, file: resolve(cwd, positionals[0]!) };
}

/** namazu backup FILE — prints {"file","engine","bytes","seconds"}. FILE must not exist yet. */
export async function backupCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values, file } = oneFile(argv, 'backup', io.cwd);
  if (existsSync(file)) throw new BackupError(`${file} already exists: name a new file`);
  const folder = dirname(file);
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory())
    throw new BackupError(
      `the folder ${folder} does not exist: create it first, or name a file in another folder`,
    );
  const partial = `${file}.partial`;
  const started = performance.now();
  const engine = await io.withDatabase(values, async ({ config, db }) => {
    await rm(partial, { force: true });
    try {
      if (config.databaseUrl !== null) await backupPostgres(config.databaseUrl, partial);
      else {
        const manifest = {
          format: BACKUP_FORMAT,
          engine: 'pglite' as const,
          createdAt: new Date().toISOString(),
          migrations: await migrationsOf(db),
        };
        await backupPglite(db, embeddedDir(config.dataDir), partial, manifest);
      }
      await rename(partial, file);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    return db.engine;
  });
  const fh = await open(file, 'r');
  const { size } = await fh.stat().finally(() => fh.close());
  printJson(io, { file, engine, bytes: size, seconds: Math.round(performance.now() - started) / 1000 });
}

async function readKind(file: string) {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch (err) {
    throw new BackupError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await fh.read(head, 0, 8, 0);
    return backupKind(head.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/** namazu restore FILE — into an empty data directory or database; prints {"restored","engine","migrations"}. */
export async function restoreCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values, file } = oneFile(argv, 'restore', io.cwd);
  const config = loadConfig(process.env, configFlags(values, ['data-dir', 'database-url']));
  const kind = await readKind(file);
  if (kind === null) throw new BackupError(`${file} is not a backup made by namazu backup`);
  const engine = config.databaseUrl === null ? 'pglite' : 'postgres';
  if (kind !== engine)
    throw new BackupError(
      kind === 'pglite'
        ? `${file} is a backup of an embedded database: restore it without a database URL, into a data directory`
        : `${file} is a PostgreSQL dump: restore it with --database-url (NAMAZU_DATABASE_URL)`,
    );
  let migrations: string[];
  if (config.databaseUrl !== null) {
    const where = `database ${new URL(config.databaseUrl).pathname.slice(1)}`;
    let db = await openPostgres(config.databaseUrl, 1);
    try {
      await assertEmptyDatabase(db, where);
    } finally {
      await db.close();
    }
    await restorePostgres(config.databaseUrl, file);
    db = await openPostgres(config.databaseUrl, 1);
    migrations = await migrationsOf(db).finally(() => db.close());
  } else {
    const pid = dataDirHolder(config.dataDir);
    if (pid !== null)
      throw new BackupError(`data directory ${config.dataDir} is in use by process ${pid}: stop it first`);
    const pgDir = embeddedDir(config.dataDir);
    if (existsSync(pgDir) && readdirSync(pgDir).length > 0)
      throw new BackupError(
        `data directory ${config.dataDir} already holds a database (${pgDir}): restore into an empty one`,
      );
    mkdirSync(config.dataDir, { recursive: true });
    const release = lockDataDir(config.dataDir);
    try {
      await rm(pgDir, { recursive: true, force: true }); // an empty directory, checked above
      migrations = [];
      await restorePglite(file, pgDir, async (dir) => {
        // Opening replays the WAL copied with the files; the result must read as a Namazu database.
        const db = await openPglite(dir);
        migrations = await migrationsOf(db).finally(() => db.close());
      });
    } finally {
      release();
    }
  }
  printJson(io, { restored: file, engine, migrations: migrations.length });
}
