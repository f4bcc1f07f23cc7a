import { adminCommands, runCommand, type Command } from './commands.ts';
import { restoreCommand } from './backup.ts';
import { directCommandIo } from './database.ts';

/** Every subcommand of `namazu`. Names and flags are a contract with outside tools. */
const commands: Record<string, Command> = {
  // The server's modules are loaded only to serve: an admin command starts in a fraction of the time.
  serve: async (argv) => (await import('./serve.ts')).serveCommand(argv),
  migrate: async (argv) => (await import('./serve.ts')).migrateCommand(argv),
  restore: restoreCommand,
  ...adminCommands,
};

const USAGE = `usage: namazu <command> [options]
  serve [--port N] [--host H] [--data-dir D] [--database-url U] [--bus memory|postgres|redis] [--workers N]
  migrate
  account create --email E --password P [--name N] [--admin]
  apikey create --account E --scopes "s1 s2"
  client create --account E --name N --type confidential|public --redirect-uri U … --grant G … --scopes "…"
  contract add|remove --account E --plan P
  invite create [--email E] [--days N] [--by ADMIN_EMAIL]
  ingest [--type T] [--author A] PATH…   (files, or directories of *.xml)
  convert --rebuild                      (re-derive JSON conversions from the stored XML)
  replay [--speed X] [--as-test] [--loop] PATH…   (telegrams again, times moved to now)
  scenario earthquake --lat DEG --lon DEG --depth KM --magnitude M [--as-real] [--speed X]
  stations import [--change-time T] FILE   (JMA's intensity-station list, JSON, or tsunami-point table, CSV)
  backup FILE                            (a consistent copy, taken while the server runs)
  restore FILE                           (into an empty data directory or database, server stopped)
Commands that open the database also take --data-dir D and --database-url U. While a server
runs on the embedded data directory, admin commands run in that server (its admin channel).`;

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
  return runCommand(name, command, rest, directCommandIo);
}

const code = await main(process.argv.slice(2));
// serve keeps running (its handles keep the loop alive); other commands end here.
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
