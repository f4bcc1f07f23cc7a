import { rebuildConversions } from '../telegrams/rebuild.ts';
import { databaseFlags, parseFlags, printJson } from './args.ts';
import { usageError } from './usage.ts';
import type { CommandIo } from './database.ts';

/**
 * namazu convert --rebuild — re-derives the JSON conversions of every stored XML telegram after a
 * converter changed, and prints {"added","replaced","unchanged","failed":[{id,schema,reason}]}.
 */
export async function convertCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values, positionals } = parseFlags(argv, { ...databaseFlags, rebuild: { type: 'boolean' } }, false);
  if (!values.rebuild || positionals.length > 0) throw usageError('convert');
  printJson(io, await io.withDatabase(values, ({ db }) => rebuildConversions(db)));
}
