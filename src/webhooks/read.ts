// Defensive reads of a JSON conversion document: a field of an unexpected shape reads as absent.

export type Json = Record<string, unknown>;

export const record = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;

export const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export const list = (value: unknown): Json[] =>
  Array.isArray(value) ? value.map(record).filter((v): v is Json => v !== null) : [];

/** `value.a.b…` as a record, or null. */
export function path(value: unknown, ...keys: string[]): Json | null {
  let at = record(value);
  for (const key of keys) at = at && record(at[key]);
  return at;
}

/** The names of `items` in order, each once. */
export function namesOf(items: Json[]): string[] {
  return [...new Set(items.map((i) => text(i.name)).filter((n): n is string => n !== null))];
}
