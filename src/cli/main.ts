import { adminCommands, runCommand, type Command } from './commands.ts';
import { restoreCommand } from './backup.ts';
import { directCommandIo } from './database.ts';
import { overview } from './usage.ts';

/** Every subcommand of `namazu`. Names and flags are a contract with outside tools. */
const commands: Record<string, Command> = {
  // The server's modules are loaded only to serve: an admin command starts in a fraction of the time.
  serve: async (argv) => (await import('./serve.ts')).serveCommand(argv),
  migrate: async (argv) => (await import('./serve.ts')).migrateCommand(argv),
  restore: restoreCommand,
  ...adminCommands,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  // `namazu help account` is `namazu account --help`.
  if (name === 'help' && rest.length > 0) return main([...rest, '--help']);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(overview());
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`namazu: unknown command "${name}"\n${overview()}`);
    return 2;
  }
  return runCommand(name, command, rest, directCommandIo);
}

const code = await main(process.argv.slice(2));
// serve keeps running (its handles keep the loop alive); other commands end here.
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
