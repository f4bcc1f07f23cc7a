/**
 * Online backup and restore of the embedded database (docs/operations.md, "Backup and restore"):
 * PostgreSQL's own non-exclusive base backup, taken by the process that has the database open.
 * Between pg_backup_start and pg_backup_stop the data files are copied while queries go on (a page
 * copied mid-write is repaired on restore from the full-page images PostgreSQL writes to its WAL
 * during a backup); then the WAL from the backup's start to its end and the backup label are added.
 * Opening the restored directory replays that WAL: the database as it was when the backup ended.
 */
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PassThrough } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { BackupError, BACKUP_FORMAT, type BackupManifest } from './backup-format.ts';
import { extractTar, TarError, TarWriter, type EntrySink } from './tar.ts';
import type { Db } from './types.ts';

const MANIFEST = 'namazu-backup.json';
/** Directories whose contents PostgreSQL recreates or does not need in a base backup. */
const EMPTY_DIRS = new Set([
  'pg_wal',
  'pg_dynshmem',
  'pg_notify',
  'pg_replslot',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
]);
/** Files of the running instance that a restored one must not see. */
const SKIPPED_FILES = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map']);
const WAL_SEGMENT = /^[0-9A-F]{24}$/;

/** Adds `dir` (relative to `root`) and everything under it, each file as it is when read. */
async function addTree(tar: TarWriter, root: string, dir: string): Promise<number> {
  let files = 0;
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return []; // removed since listed: its removal is in the WAL
      throw err;
    },
  );
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = dir === '' ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) {
      await tar.directory(`pg/${rel}`);
      if (!(dir === '' && EMPTY_DIRS.has(e.name))) files += await addTree(tar, root, rel);
    } else if (
      e.isFile() &&
      !(dir === '' && SKIPPED_FILES.has(e.name)) &&
      !e.name.endsWith('pg_internal.init')
    ) {
      let fh;
      try {
        fh = await open(join(root, rel), 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // dropped meanwhile
        throw err;
      }
      try {
        const s = await fh.stat();
        await tar.file(`pg/${rel}`, fh, s.size, s.mtimeMs / 1000);
        files++;
      } finally {
        await fh.close();
      }
    }
  }
  return files;
}

/**
 * The WAL segments from `first` through `last`, which must all still be there. A segment name is
 * timeline, "log id" and segment within it (8 hex digits each); `perId` segments make a log id.
 */
async function walSegments(pgDir: string, first: string, last: string, perId: bigint): Promise<string[]> {
  const names = (await readdir(join(pgDir, 'pg_wal')))
    .filter((n) => WAL_SEGMENT.test(n) && n.slice(0, 8) === first.slice(0, 8) && n >= first && n <= last)
    .sort();
  const seg = (n: string) => BigInt(`0x${n.slice(8, 16)}`) * perId + BigInt(`0x${n.slice(16)}`);
  if (names[0] !== first || names.at(-1) !== last || BigInt(names.length) !== seg(last) - seg(first) + 1n)
    throw new BackupError(
      'the WAL written during the backup was recycled before it could be copied (more than ' +
        'max_wal_size was written meanwhile); run the backup again at a quieter time',
    );
  return names;
}

export interface BackupSummary {
  files: number;
  walSegments: number;
}

/**
 * Writes a gzip-compressed archive of the embedded database `db`, whose files are in `pgDir`, to
 * `file` while `db` keeps serving. The archive holds a manifest, the data directory and its WAL.
 */
export async function backupPglite(
  db: Db,
  pgDir: string,
  file: string,
  manifest: BackupManifest,
): Promise<BackupSummary> {
  try {
    await db.query(`SELECT pg_backup_start('namazu backup', true)`);
  } catch (err) {
    if (/already in progress/i.test((err as Error).message))
      throw new BackupError('another backup of this database is under way; wait for it to end');
    throw err;
  }
  const tarStream = new PassThrough({ highWaterMark: 4 * 1024 * 1024 });
  const written = pipeline(
    tarStream,
    createGzip({ level: 1 }),
    createWriteStream(file, { flags: 'wx', mode: 0o600 }),
  );
  // A failed write ends the pipeline early: stop feeding it at once.
  let writeFailed: unknown = null;
  written.catch((err: unknown) => {
    writeFailed = err;
    tarStream.destroy();
  });
  const tar = new TarWriter(tarStream);
  let stopped = false;
  try {
    await tar.buffer(MANIFEST, Buffer.from(JSON.stringify(manifest, null, 2) + '\n'));
    await tar.directory('pg');
    const files = await addTree(tar, pgDir, '');
    const [stop] = await db.query<{ labelfile: string; spcmapfile: string; last: string }>(
      `SELECT labelfile, spcmapfile, pg_walfile_name(lsn) AS last FROM pg_backup_stop(false)`,
    );
    stopped = true;
    const [size] = await db.query<{ bytes: string }>(
      `SELECT setting AS bytes FROM pg_settings WHERE name = 'wal_segment_size'`,
    );
    const first = /START WAL LOCATION: \S+ \(file ([0-9A-F]{24})\)/.exec(stop!.labelfile)?.[1];
    if (!first) throw new BackupError('PostgreSQL returned a backup label without its start');
    const segments = await walSegments(pgDir, first, stop!.last, 0x100000000n / BigInt(size!.bytes));
    for (const name of segments) {
      const fh = await open(join(pgDir, 'pg_wal', name), 'r');
      try {
        const s = await fh.stat();
        await tar.file(`pg/pg_wal/${name}`, fh, s.size, s.mtimeMs / 1000);
      } finally {
        await fh.close();
      }
    }
    await tar.buffer('pg/backup_label', Buffer.from(stop!.labelfile));
    if (stop!.spcmapfile) await tar.buffer('pg/tablespace_map', Buffer.from(stop!.spcmapfile));
    await tar.end();
    tarStream.end();
    await written;
    return { files, walSegments: segments.length };
  } catch (err) {
    if (!stopped) await db.query('SELECT pg_backup_stop(false)').catch(() => {});
    tarStream.destroy();
    await written.catch(() => {});
    throw writeFailed ?? err;
  }
}

/** An owner-only file that the archive's bytes are written to. */
async function fileSink(path: string): Promise<EntrySink> {
  const fh = await open(path, 'wx', 0o600);
  return {
    write: async (chunk) => {
      await fh.write(chunk);
    },
    close: () => fh.close(),
  };
}

/**
 * Restores an archive made by backupPglite into `pgDir`, which must not exist yet: the files go to
 * a directory beside it, `open` replays the WAL there (and checks the result), and only then is it
 * renamed to `pgDir`. Answers the archive's manifest.
 */
export async function restorePglite(
  file: string,
  pgDir: string,
  check: (dir: string) => Promise<void>,
): Promise<BackupManifest> {
  const work = `${pgDir}.restoring`;
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { mode: 0o700 });
  let manifest: BackupManifest | null = null;
  try {
    await extractTar(createReadStream(file).pipe(createGunzip()), async (entry) => {
      if (manifest === null) {
        if (entry.name !== MANIFEST || entry.type !== 'file' || entry.size > 64 * 1024)
          throw new BackupError(`${file} is not a backup of Namazu's embedded database`);
        const chunks: Buffer[] = [];
        return {
          write: async (c) => void chunks.push(c),
          close: async () => {
            manifest = parseManifest(Buffer.concat(chunks).toString('utf8'), file);
          },
        };
      }
      if (entry.name !== 'pg' && !entry.name.startsWith('pg/'))
        throw new BackupError(`unexpected entry ${entry.name} in ${file}`);
      const target = join(work, entry.name.slice(3));
      if (entry.type === 'directory') {
        if (entry.name !== 'pg') await mkdir(target, { mode: 0o700 });
        return null;
      }
      return fileSink(target);
    });
  } catch (err) {
    await rm(work, { recursive: true, force: true });
    // zlib's errors: Z_DATA_ERROR for damaged data, Z_BUF_ERROR for a file cut short.
    if (err instanceof TarError || (err as NodeJS.ErrnoException).code?.startsWith('Z_'))
      throw new BackupError(`${file} is not a Namazu backup, or is damaged: ${(err as Error).message}`);
    throw err;
  }
  try {
    if (manifest === null) throw new BackupError(`${file} holds no backup`);
    await stat(join(work, 'backup_label')).catch(() => {
      throw new BackupError(
        `${file} is incomplete: it holds no pg/backup_label (where the WAL replay starts), so it cannot be restored`,
      );
    });
    await check(work);
    await rename(work, pgDir);
  } catch (err) {
    await rm(work, { recursive: true, force: true });
    throw err;
  }
  return manifest;
}

function parseManifest(text: string, file: string): BackupManifest {
  let m: Partial<BackupManifest>;
  try {
    m = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw new BackupError(`${file} has a damaged manifest`);
  }
  if (m.format !== BACKUP_FORMAT || m.engine !== 'pglite')
    throw new BackupError(`${file} is not a backup of Namazu's embedded database`);
  return m as BackupManifest;
}
