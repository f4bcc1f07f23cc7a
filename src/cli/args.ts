import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CodedError } from '../errors.ts';

/**
 * Bad command-line usage: the CLI prints the message and exits with status 2; `pointToHelp` adds
 * where the command's help is (an unknown or malformed flag).
 */
export class UsageError extends CodedError {
  constructor(
    message: string,
    readonly pointToHelp = false,
  ) {
    super('USAGE', { message });
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags every command that opens the database accepts (they override the environment). */
export const databaseFlags = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
} as const satisfies Options;

/**
 * Parses flags strictly: unknown flags, missing values and stray arguments are UsageErrors (runCommand
 * adds where the command's help is). Node's message for an unknown option goes on about `--`
 * with an unbalanced quote: it is said in a few words instead.
 */
export function parseFlags<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const unknown = /^Unknown option '([^']*)'/.exec(e.message);
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown)
      throw new UsageError(`unknown option ${unknown[1]}`, true);
    throw new UsageError(e.message.split('\n')[0]!.replace(/^TypeError \[[A-Z_]+\]: /, ''), true);
  }
}

/** The config flags (`--flag` → value) among parsed values, for loadConfig. */
export function configFlags(
  values: Record<string, unknown>,
  names: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (typeof values[n] === 'string') out[`--${n}`] = values[n] as string;
  return out;
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.length === 0) throw new UsageError(`--${name} is required`, true);
  return v;
}

/** Prints the one JSON object an admin command answers with. */
export function printJson(io: { stdout(text: string): void }, value: unknown): void {
  io.stdout(JSON.stringify(value) + '\n');
}
