import { badQuery } from '../http/errors.ts';
import { EARLIEST_TIME, LATEST_TIME } from '../telegrams/read.ts';

const DATETIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(Z|[+-]\d\d:\d\d)?$/;

/**
 * A bound moved into the instants both database engines hold (years 0001 to 9999 in UTC), which
 * selects the same telegrams: none was received before or after them.
 */
const held = (d: Date | undefined) =>
  d && new Date(Math.min(Math.max(d.getTime(), EARLIEST_TIME), LATEST_TIME));

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
  return { from: held(from), before: held(before) };
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
