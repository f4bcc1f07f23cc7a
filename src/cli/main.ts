import { AccountError } from '../accounts/accounts.ts';
import { ConfigError } from '../config.ts';
import { DataDirLockedError } from '../db/lock-file.ts';
import { accountCommand, apikeyCommand, contractCommand } from './accounts.ts';
import { UsageError } from './args.ts';
import { clientCommand } from './client.ts';
import { convertCommand } from './convert.ts';
import { ingestCommand } from './ingest.ts';
import { migrateCommand, serveCommand } from './serve.ts';

type Command = (argv: string[]) => Promise<void>;

/** Every subcommand of `namazu`. Names and flags are a contract with outside tools. */
const commands: Record<string, Command> = {
  serve: serveCommand,
  migrate: migrateCommand,
  account: accountCommand,
  apikey: apikeyCommand,
  client: clientCommand,
  contract: contractCommand,
  ingest: ingestCommand,
  convert: convertCommand,
};

const USAGE = `usage: namazu <command> [options]
  serve [--port N] [--host H] [--data-dir D] [--database-url U] [--bus memory|postgres|redis] [--workers N]
  migrate
  account create --email E --password P [--name N] [--admin]
  apikey create --account E --scopes "s1 s2"
  client create --account E --name N --type confidential|public --redirect-uri U … --grant G … --scopes "…"
  contract add|remove --account E --plan P
  ingest [--type T] [--author A] PATH…   (files, or directories of *.xml)
  convert --rebuild                      (re-derive JSON conversions from the stored XML)
Commands that open the database also take --data-dir D and --database-url U.`;

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
  if (e?.code === 'EADDRINUSE') return `port already in use: ${e.address ?? ''}:${e.port ?? ''}`;
  if (e?.code === 'EACCES') return `permission denied: ${e.message}`;
  if (e instanceof Error && /password authentication failed|does not exist|timeout/i.test(e.message))
    return `database error: ${e.message}`;
  return e instanceof Error ? e.message : String(err);
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE + '\n');
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`namazu: unknown command "${name}"\n${USAGE}\n`);
    return 2;
  }
  try {
    await command(rest);
    return 0;
  } catch (err) {
    const usage = err instanceof UsageError || err instanceof ConfigError;
    const known = usage || err instanceof DataDirLockedError || err instanceof AccountError;
    process.stderr.write(`namazu ${name}: ${known ? (err as Error).message : describeFatal(err)}\n`);
    return usage ? 2 : 1;
  }
}

const code = await main(process.argv.slice(2));
// serve keeps running (its handles keep the loop alive); other commands end here.
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
