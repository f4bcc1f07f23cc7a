/**
 * Delivery filters of a WebSocket session (docs/api-contract.md "Filters and formats"): which
 * telegrams a connection receives. Connections with equal filters form one subscription group.
 */
import type { FormatMode } from '../sessions/socket-sessions.ts';
import type { TelegramRecord } from '../telegrams/record.ts';

export interface DeliveryFilter {
  classifications: readonly string[];
  /** Exact data type codes; `!CODE` excludes a code. null = every type of the classifications. */
  types: readonly string[] | null;
  test: 'no' | 'including';
  formatMode: FormatMode;
}

/** A filter compiled for fast matching; `key` identifies its subscription group. */
export interface CompiledFilter {
  readonly key: string;
  readonly filter: DeliveryFilter;
  readonly classifications: ReadonlySet<string>;
  /** null when no positive code was given (every type passes unless excluded). */
  readonly include: ReadonlySet<string> | null;
  readonly exclude: ReadonlySet<string>;
  readonly formatMode: FormatMode;
}

export function compileFilter(filter: DeliveryFilter): CompiledFilter {
  const include = new Set<string>();
  const exclude = new Set<string>();
  for (const t of filter.types ?? []) {
    if (t.startsWith('!')) exclude.add(t.slice(1));
    else include.add(t);
  }
  const classifications = new Set(filter.classifications);
  const key = JSON.stringify([
    [...classifications].sort(),
    [...include].sort(),
    [...exclude].sort(),
    filter.test,
    filter.formatMode,
  ]);
  return {
    key,
    filter,
    classifications,
    include: include.size > 0 ? include : null,
    exclude,
    formatMode: filter.formatMode,
  };
}

/**
 * A test or training telegram whose status is known: an XML telegram marked as one, and the JSON
 * conversion of such a telegram. A/N and binary telegrams carry no test status and are always
 * delivered (docs/api-contract.md "Filters and formats").
 */
export function isKnownTest(record: TelegramRecord): boolean {
  return record.head.test && (record.head.xml || record.format === 'json');
}

export function matches(f: CompiledFilter, record: TelegramRecord): boolean {
  if (!f.classifications.has(record.classification)) return false;
  const type = record.head.type;
  if (f.include && !f.include.has(type)) return false;
  if (f.exclude.has(type)) return false;
  if (isKnownTest(record) && f.filter.test !== 'including') return false;
  // Each mode receives only its formats: JSON mode replaces XML by its conversion.
  return f.formatMode === 'raw' ? record.format !== 'json' : record.format !== 'xml';
}
