/**
 * Backup and restore of a PostgreSQL database with PostgreSQL's own tools (docs/operations.md,
 * "Backup and restore"): pg_dump takes one consistent snapshot (a REPEATABLE READ transaction)
 * while the nodes keep serving, in its custom format; pg_restore loads it into an empty database.
 * The password is handed over in the environment, never on a command line others can read.
 */
import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { BackupError } from './backup-format.ts';
import type { Queryable } from './types.ts';

/** The URL without its password, and the environment that carries the password. */
function connection(databaseUrl: string): { url: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (url.password) env.PGPASSWORD = decodeURIComponent(url.password);
  url.password = '';
  return { url: url.toString(), env };
}

function run(tool: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += d.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new BackupError(
              `${tool} not found: install PostgreSQL's client tools, of the server's major version or newer`,
            )
          : err,
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve();
      else {
        const lines = stderr.trim().split('\n').filter(Boolean);
        reject(
          new BackupError(`${tool} failed (status ${code}): ${lines.slice(-3).join(' / ') || 'no message'}`),
        );
      }
    });
  });
}

/**
 * pg_dump of the whole database to `file` (which must not exist), in pg_dump's custom format. The
 * file holds the pepper, every account and every telegram: it is created readable by its owner
 * alone before pg_dump writes into it (pg_dump keeps the mode of a file that exists), as the
 * embedded engine's archives are.
 */
export async function backupPostgres(databaseUrl: string, file: string): Promise<void> {
  const { url, env } = connection(databaseUrl);
  await (await open(file, 'wx', 0o600)).close();
  await run(
    'pg_dump',
    ['--format=custom', '--compress=1', '--no-owner', '--no-privileges', `--file=${file}`, `--dbname=${url}`],
    env,
  );
}

/** Throws unless the database holds no table, view or sequence of its own. */
export async function assertEmptyDatabase(q: Queryable, where: string): Promise<void> {
  const [row] = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
      WHERE s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname NOT LIKE 'pg\\_toast%'
        AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')`,
  );
  if (row!.n > 0)
    throw new BackupError(
      `${where} is not empty (${row!.n} tables, views or sequences): restore into a newly created database`,
    );
}

/** pg_restore of a custom-format dump into the (empty) database, in one transaction. */
export async function restorePostgres(databaseUrl: string, file: string): Promise<void> {
  const { url, env } = connection(databaseUrl);
  await run(
    'pg_restore',
    ['--exit-on-error', '--single-transaction', '--no-owner', '--no-privileges', `--dbname=${url}`, file],
    env,
  );
}
