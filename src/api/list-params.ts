import { badQuery, HttpError } from '../http/errors.ts';
import type { TelegramQuery } from '../telegrams/store.ts';

/** Query values as Fastify hands them over: a string, or an array when a name repeats. */
export type RawQuery = Record<string, string | string[] | undefined>;

export const MAX_EXACT_TYPES = 5;
const TYPE_CODE = /^[A-Za-z0-9]{1,6}$/;

/** One string value of a parameter; a repeated parameter is a 400. */
export function single(query: RawQuery, name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) throw badQuery(name);
  return v;
}

export function parseLimit(raw: string | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,4}$/.test(raw)) throw badQuery(name);
  const n = Number(raw);
  if (n < 1 || n > max) throw badQuery(name);
  return n;
}

export function parseBoolean(raw: string | undefined, name: string): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw badQuery(name);
}

/**
 * `type`: one code is a prefix match; several, comma-separated, must match exactly (at most five).
 * The official SDK sends a list as repeated `type[]` parameters, which count as the exact list.
 */
export function parseTypes(query: RawQuery): TelegramQuery['types'] {
  const bracketed = query['type[]'];
  const plain = single(query, 'type');
  if (bracketed !== undefined) {
    if (plain !== undefined) throw badQuery('type');
    const codes = (Array.isArray(bracketed) ? bracketed : [bracketed]).flatMap((v) => v.split(','));
    return exactTypes(codes, 'type[]');
  }
  if (plain === undefined || plain === '') return undefined;
  if (!plain.includes(',')) {
    if (!TYPE_CODE.test(plain)) throw badQuery('type');
    return { prefix: normaliseType(plain) };
  }
  return exactTypes(plain.split(','), 'type');
}

function exactTypes(codes: string[], name: string): TelegramQuery['types'] {
  if (codes.length > MAX_EXACT_TYPES || codes.some((c) => !TYPE_CODE.test(c))) throw badQuery(name);
  return { exact: [...new Set(codes.map(normaliseType))] };
}

/** Codes are upper case except JMA's `ii` series placeholders (VXKOii). */
const normaliseType = (code: string) =>
  /ii$/i.test(code) ? code.slice(0, 4).toUpperCase() + 'ii' : code.toUpperCase();

const DATETIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(Z|[+-]\d\d:\d\d)?$/;

/**
 * `datetime` range `<start>~<end>` (end exclusive, either side optional). Times without an offset
 * are Japan time (UTC+09:00), as on the production service.
 */
export function parseDatetimeRange(raw: string | undefined): { from?: Date; before?: Date } {
  if (raw === undefined || raw === '') return {};
  const parts = raw.split('~');
  if (parts.length !== 2) throw badQuery('datetime');
  const [from, before] = parts.map((p) => (p === '' ? undefined : parseJapanTime(p)));
  if (from && before && from.getTime() >= before.getTime()) throw badQuery('datetime');
  if (!from && !before) throw badQuery('datetime');
  return { from, before };
}

function parseJapanTime(s: string): Date {
  const m = DATETIME.exec(s.trim());
  if (!m) throw badQuery('datetime');
  const [, y, mo, d, h, mi, se, zone] = m;
  const d0 = new Date(`${y}-${mo}-${d}T${h}:${mi}:${se}${zone ?? '+09:00'}`);
  // Rejects impossible dates that Date would roll over (2024-02-31).
  if (
    Number.isNaN(d0.getTime()) ||
    Number(mo) > 12 ||
    Number(d) > 31 ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(se) > 59
  )
    throw badQuery('datetime');
  const check = new Date(d0.getTime() + (zone === 'Z' ? 0 : offsetMs(zone ?? '+09:00')));
  if (check.getUTCDate() !== Number(d)) throw badQuery('datetime');
  return d0;
}

const offsetMs = (zone: string) =>
  (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;

export const formatModeError = () =>
  new HttpError(400, 'You have entered a string that is not defined in `formatMode`.');
