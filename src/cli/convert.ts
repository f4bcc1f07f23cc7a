import { rebuildConversions } from '../telegrams/rebuild.ts';
import { databaseFlags, parseFlags, printJson, UsageError } from './args.ts';
import type { CommandIo } from './database.ts';

const USAGE = 'usage: namazu convert --rebuild';

/**
 * namazu convert --rebuild — re-derives the JSON conversions of every stored XML telegram after a
 * converter changed, and prints {"added","replaced","unchanged","failed":[{id,schema,reason}]}.
 */
export async function convertCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values, positionals } = parseFlags(argv, { ...databaseFlags, rebuild: { type: 'boolean' } }, false);
  if (!values.rebuild || positionals.length > 0) throw new UsageError(USAGE);
  printJson(io, await io.withDatabase(values, ({ db }) => rebuildConversions(db)));
}
