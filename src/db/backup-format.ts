import { CodedError } from '../errors.ts';
/** What `namazu backup` writes and `namazu restore` reads (docs/operations.md, "Backup and restore"). */

/** A backup or restore that cannot be done; the message says why and, where it helps, what to do. */
export class BackupError extends CodedError {
  constructor(message: string) {
    super('BACKUP_FAILED', { message });
  }
}

export const BACKUP_FORMAT = 'namazu-backup/1' as const;

/** The first entry of a backup of the embedded database. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  engine: 'pglite';
  createdAt: string;
  /** The migrations the database had: a restore under an older release than that is refused by nothing but this note. */
  migrations: string[];
}

/** A backup file's engine, from its first bytes: gzip for the embedded database, pg_dump's custom format for PostgreSQL. */
export function backupKind(head: Buffer): 'pglite' | 'postgres' | null {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'pglite';
  if (head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'postgres';
  return null;
}
