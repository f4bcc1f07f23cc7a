import { CodedError } from '../errors.ts';
import { intensityRank } from './earthquake-merge.ts';
import type { IntensityClass } from './types.ts';

/**
 * A query value the earthquake list cannot use. `parameter` is the query parameter's name; the API
 * answers 400 ``Unexpected data of search query `<parameter>`.`` (docs/data-api.md).
 */
export class GdFilterError extends CodedError {
  constructor(readonly parameter: string) {
    super('UNEXPECTED_QUERY', { detail: parameter });
    this.name = 'GdFilterError';
  }
}

/** `hypocenter`: a 3-digit epicentre area code (docs/gd.md). */
export function parseHypocenterFilter(raw: string): string {
  if (!/^\d{3}$/.test(raw)) throw new GdFilterError('hypocenter');
  return raw;
}

/**
 * `maxInt`: one of 1 2 3 4 5- 5+ 6- 6+ 7 (a lower bound). A `+` sent unescaped reaches us decoded
 * to a space, so `5 ` and `6 ` are read as `5+` and `6+`.
 */
export function parseMaxIntFilter(raw: string): IntensityClass {
  const value = /^[56] $/.test(raw) ? `${raw[0]}+` : raw;
  if (intensityRank(value) === null) throw new GdFilterError('maxInt');
  return value as IntensityClass;
}

/**
 * `date`: `yyyy-MM-dd`, an existing calendar date from year 1 on (the database has no year 0); a time part after it (`T…` or a space) is
 * ignored. Returns the date as `yyyy-MM-dd`.
 */
export function parseDateFilter(raw: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].{0,40})?$/.exec(raw);
  if (!m || m[1] === '0000') throw new GdFilterError('date');
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  const check = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(check.getTime()) || check.toISOString().slice(0, 10) !== date)
    throw new GdFilterError('date');
  return date;
}
