import { CodedError, type ErrorCode } from '../errors.ts';
import { accountCommand, apikeyCommand, contractCommand, inviteCommand } from './accounts.ts';
import { callAdminChannel } from './admin-client.ts';
import { backupCommand } from './backup.ts';
import { UsageError } from './args.ts';
import { clientCommand } from './client.ts';
import { convertCommand } from './convert.ts';
import { DataDirServedError, type CommandIo } from './database.ts';
import { ingestCommand } from './ingest.ts';
import { replayCommand } from './replay.ts';
import { scenarioCommand } from './scenario.ts';
import { stationsCommand } from './stations.ts';
import { helpCommand, helpText, wantsHelp } from './usage.ts';

export type Command = (argv: string[], io: CommandIo) => Promise<void>;

/** The commands that run beside a server: directly, or through its admin channel. */
export const adminCommands: Record<string, Command> = {
  account: accountCommand,
  apikey: apikeyCommand,
  client: clientCommand,
  contract: contractCommand,
  invite: inviteCommand,
  ingest: ingestCommand,
  convert: convertCommand,
  replay: replayCommand,
  scenario: scenarioCommand,
  stations: stationsCommand,
  backup: backupCommand,
};

/** The errors of bad usage or configuration, which exit with status 2. */
const USAGE_CODES: ReadonlySet<ErrorCode> = new Set(['USAGE', 'CONFIG_INVALID']);

/** One line for an error, never a stack trace: what failed and, where it helps, what to do. */
function describeFatal(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (
    e?.code === 'ECONNREFUSED' ||
    e?.code === 'ENOTFOUND' ||
    e?.code === 'ETIMEDOUT' ||
    e?.code === 'EHOSTUNREACH'
  )
    return `cannot reach the database: ${e.code}${e.address ? ` ${e.address}:${e.port}` : ''}`;
  if (e?.code === 'EADDRINUSE')
    return `port already in use: ${e.address ?? ''}:${e.port ?? ''}: another process listens there (a namazu serve started before?); stop it, or choose another port with --port N or NAMAZU_PORT=N`;
  if (e?.code === 'EACCES') return `permission denied: ${e.message}`;
  if (e instanceof Error && /password authentication failed|does not exist|timeout/i.test(e.message))
    return `database error: ${e.message}`;
  return e instanceof Error ? e.message : String(err);
}

/** What to do about an embedded data directory another process holds (src/db/lock-file.ts). */
function lockedAdvice(name: string, err: CodedError): string {
  if (err.code !== 'DATA_DIR_LOCKED' || !/in use by process/.test(err.message)) return '';
  return name === 'serve'
    ? ': a server already runs on it; stop that one first, or start this one with another --data-dir (NAMAZU_DATA_DIR) and --port (NAMAZU_PORT)'
    : ': stop the server on it first';
}

/**
 * Runs a command and answers its exit status: 0, 2 for bad usage or configuration, 1 for any other
 * failure (one line on stderr). `-h`/`--help` anywhere prints the command's help (src/cli/usage.ts)
 * and runs nothing. A command that finds the embedded data directory held by a running server is
 * sent to that server's admin channel, which answers the same output and status.
 */
export async function runCommand(
  name: string,
  command: Command,
  argv: string[],
  io: CommandIo,
): Promise<number> {
  if (wantsHelp(argv)) {
    io.stdout(helpText(name, argv));
    return 0;
  }
  try {
    await command(argv, io);
    return 0;
  } catch (err) {
    // Stopped under way (the caller went away, or the server stops): said as such, never as a failure.
    if (io.signal?.aborted) {
      io.stderr(`namazu ${name}: stopped: ${(io.signal.reason as Error).message}\n`);
      return 1;
    }
    if (err instanceof DataDirServedError)
      return callAdminChannel(err, { command: name, argv: err.argv ?? argv, cwd: io.cwd }, io);
    // A catalogued error says what failed in its own message; anything else is described here.
    const message = err instanceof CodedError ? err.message + lockedAdvice(name, err) : describeFatal(err);
    const help = err instanceof UsageError && err.pointToHelp ? ` (see ${helpCommand(name, argv)})` : '';
    io.stderr(`namazu ${name}: ${message}${help}\n`);
    return err instanceof CodedError && USAGE_CODES.has(err.code) ? 2 : 1;
  }
}
