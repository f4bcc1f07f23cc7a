import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Bad command-line usage: the CLI prints the message and exits with status 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags every command that opens the database accepts (they override the environment). */
export const databaseFlags = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
} as const satisfies Options;

/** Parses flags strictly: unknown flags, missing values and stray arguments are UsageErrors. */
export function parseFlags<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
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
  if (typeof v !== 'string' || v.length === 0) throw new UsageError(`--${name} is required`);
  return v;
}

/** Prints the one JSON object an admin command answers with. */
export function printJson(io: { stdout(text: string): void }, value: unknown): void {
  io.stdout(JSON.stringify(value) + '\n');
}
