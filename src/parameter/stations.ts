import { createHash } from 'node:crypto';
import { CodedError } from '../errors.ts';

/**
 * The station lists of the parameter API (docs/parameter.md): JMA's seismic-intensity stations and
 * tsunami observation points, in the production service's item shapes. A list carries the time JMA
 * applied it (`changeTime`) and a version derived from its content, so that a client (and an ETag)
 * can tell whether anything changed.
 */

/** How a station stands at the list's change time (the production service's four words). */
export type StationStatus = '現' | '変更' | '新規' | '廃止';

export interface NamedCode {
  code: string;
  name: string;
  kana: string;
}

export interface EarthquakeStation {
  region: NamedCode;
  city: NamedCode;
  /** JMA's public list has one code per station; `noCode` repeats it (docs/parameter.md). */
  noCode: string;
  code: string;
  name: string;
  kana: string;
  status: StationStatus;
  owner: string;
  latitude: string;
  longitude: string;
}

export interface TsunamiStation {
  /** JMA's code table names no forecast region or prefecture for a point: null. */
  area: string | null;
  prefecture: string | null;
  code: string;
  name: string;
  kana: string;
  owner: string;
  /** JMA publishes no positions of tsunami observation points: empty strings (docs/parameter.md). */
  latitude: string;
  longitude: string;
}

export type StationKind = 'earthquake' | 'tsunami';

export interface StationItems {
  earthquake: EarthquakeStation[];
  tsunami: TsunamiStation[];
}

export interface StationList<K extends StationKind = StationKind> {
  kind: K;
  /** ISO 8601 UTC with milliseconds. */
  changeTime: string;
  version: string;
  items: StationItems[K];
}

/** A station list file that cannot be used: the message says which row and why. */
export class StationListInvalid extends CodedError {
  constructor(message: string) {
    super('STATION_LIST_INVALID', { message });
  }
}

/** The version of a list: the first 16 hex characters of SHA-256 over its items and change time. */
export function listVersion(changeTime: string, items: readonly object[]): string {
  return createHash('sha256').update(changeTime).update(JSON.stringify(items)).digest('hex').slice(0, 16);
}

/** A list of `kind` from its items, versioned (`version` where it is known already: the shipped lists). */
export function stationList<K extends StationKind>(
  kind: K,
  changeTime: string,
  items: StationItems[K],
  version = listVersion(changeTime, items),
): StationList<K> {
  return { kind, changeTime, version, items };
}

/** What identifies a station's published facts: a change in any of them is 変更. */
const facts = (s: EarthquakeStation | TsunamiStation): string => JSON.stringify({ ...s, status: undefined });

/**
 * The items of a newer list measured against the list it replaces: stations new to it are 新規,
 * stations whose name, place or position moved are 変更, stations it no longer has stay listed as
 * 廃止 (the production service lists both sides of a change), the rest are 現. Stations already
 * 廃止 in the older list and still absent are dropped.
 */
export function markChanges<T extends EarthquakeStation | TsunamiStation>(
  previous: readonly T[] | null,
  next: readonly T[],
): T[] {
  const withStatus = (s: T, status: StationStatus): T => ('status' in s ? { ...s, status } : s);
  if (previous === null) return next.map((s) => withStatus(s, '現'));
  const before = new Map(previous.map((s) => [s.code, s]));
  const out = next.map((s) => {
    const old = before.get(s.code);
    if (!old || ('status' in old && old.status === '廃止')) return withStatus(s, '新規');
    return withStatus(s, facts(old) === facts(s) ? '現' : '変更');
  });
  const kept = new Set(next.map((s) => s.code));
  for (const old of previous) {
    if (kept.has(old.code) || ('status' in old && old.status === '廃止')) continue;
    // Tsunami points carry no status in the production shape: an abolished point simply leaves.
    if ('status' in old) out.push(withStatus(old, '廃止'));
  }
  return out;
}
