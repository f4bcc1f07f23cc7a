import { resolve } from 'node:path';
import type { Bus } from '../bus/types.ts';
import { openBus } from '../bus/open.ts';
import { loadConfig, type Config } from '../config.ts';
import { dataDirHolder } from '../db/lock-file.ts';
import { migrate } from '../db/migrate.ts';
import { openDb } from '../db/open.ts';
import type { Db } from '../db/types.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import { loadPepper } from '../security/pepper.ts';
import { configFlags } from './args.ts';
import { readSecret } from './read-secret.ts';
import { CodedError } from '../errors.ts';

export interface AdminSession {
  config: Config;
  db: Db;
  pepper: Buffer;
  /** Where new telegrams and contract changes are announced to running servers (opened on first use). */
  bus(): Promise<Bus>;
  /** In a server (its admin channel): its instruments and log, which count and hear of what is ingested. */
  metrics?: Metrics;
  log?: Pick<Logger, 'warn'>;
  /**
   * Outside a server, on an embedded data directory (this path) that no server holds: what is
   * ingested here reaches no client until a server starts on it.
   */
  unservedDataDir?: string;
}

/**
 * What an admin command needs from where it runs: the database, the caller's working directory
 * and its output. The same command code runs in the `namazu` process (directCommandIo) and inside
 * a running server for a caller on its admin channel (docs/architecture.md, "Admin commands").
 */
export interface CommandIo {
  /** The caller's working directory: relative paths on the command line are resolved against it. */
  cwd: string;
  withDatabase<T>(values: Record<string, unknown>, fn: (s: AdminSession) => Promise<T>): Promise<T>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads a secret from the operator (a terminal prompt, else standard input); not in a server. */
  readSecret?(prompt: string): Promise<string>;
  /**
   * In a server: aborted when the caller goes away (Ctrl-C on the command) or the server stops; a
   * long command (scenario, replay) stops on it. Its reason says which.
   */
  signal?: AbortSignal;
}

/** The embedded data directory is held by a running server: the command goes to its admin channel. */
export class DataDirServedError extends CodedError {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    /** The arguments to send instead of the command's own (with what it read from the operator). */
    readonly argv?: string[],
  ) {
    super('DATA_DIR_SERVED', { message: `data directory ${dataDir} is in use by process ${pid}` });
  }
}

/**
 * Before a command sends telegrams live (replay, scenario): when no server holds its embedded data
 * directory, says on stderr that no client will see them arrive, and how to reach the server's (a
 * server started on another directory than the command's, the newcomer's usual slip).
 */
export function noteUnserved(command: string, session: AdminSession, io: CommandIo): void {
  if (session.unservedDataDir === undefined) return;
  io.stderr(
    `namazu ${command}: no server runs on data directory ${session.unservedDataDir}: the telegrams are ` +
      `stored in it, but no client sees them arrive. Start the server on it first (npm start), or give ` +
      `this command the server's --data-dir (NAMAZU_DATA_DIR)\n`,
  );
}

/** Runs an admin command against the configured database (migrated first), closing it afterwards. */
export async function withDatabase<T>(
  values: Record<string, unknown>,
  fn: (s: AdminSession) => Promise<T>,
): Promise<T> {
  const config = loadConfig(process.env, configFlags(values, ['data-dir', 'database-url']));
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    await migrate(db);
    const pepper = await loadPepper(db, config.secret);
    let bus: Promise<Bus> | undefined;
    try {
      return await fn({ config, db, pepper, bus: () => (bus ??= openBus(config)) });
    } finally {
      if (bus) await (await bus).close();
    }
  } finally {
    await db.close();
  }
}

/**
 * The `namazu` process's own database and output. An embedded data directory that a live server
 * holds is not opened: DataDirServedError sends the command to that server instead.
 */
export const directCommandIo: CommandIo = {
  cwd: process.cwd(),
  withDatabase(values, fn) {
    const config = loadConfig(process.env, configFlags(values, ['data-dir', 'database-url']));
    if (config.databaseUrl === null) {
      const pid = dataDirHolder(config.dataDir);
      if (pid !== null) throw new DataDirServedError(config.dataDir, pid);
      const unservedDataDir = resolve(config.dataDir);
      return withDatabase(values, (session) => fn({ ...session, unservedDataDir }));
    }
    return withDatabase(values, fn);
  },
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readSecret: (prompt) => readSecret(prompt),
};
