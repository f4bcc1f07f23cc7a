import { parseXml } from '../telegrams/xml.ts';
import { resolveHeaderTime, splitHeader } from '../telegrams/transport.ts';

/**
 * Replay (docs/sources.md "Replay"): telegrams ingested again in their original order and
 * relative timing, their times moved to the moment of replay, so they are new telegrams that
 * clients treat as current.
 */

/**
 * A telegram file as replay plans it: its kind and the time it was issued, or why it cannot be
 * replayed. Its bytes are read again when it is sent (`restamp`), so that a replay of a large
 * archive holds its plan, not the archive.
 */
export interface Replayable {
  path: string;
  /** `header`: A/N or binary after a JMA bulletin header, whose time is the one re-stamped. */
  kind: 'xml' | 'header';
  issuedMs: number;
  /** Control/DateTime (to the second), which orders reports of the same minute. */
  pressMs: number;
}
export type ReplayItem = Replayable | { path: string; skipped: string };

/** ISO 8601 date-time as the content of an element: `>2024-04-17T23:14:59+09:00<`. */
const ELEMENT_TIME = />(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:\d{2})</g;
/** An EventID of origin times: one, or (a tsunami report of several earthquakes) several, space-separated. */
const EVENT_IDS = /<EventID>(\d{14}(?:\s+\d{14})*)<\/EventID>/g;
const CONTROL_STATUS = /(<Control>[\s\S]*?<Status>)([^<]*)(<\/Status>)/;

/** Reads the time a telegram was issued: Head/ReportDateTime, else Control/DateTime; else its JMA header's. */
export function replayItem(path: string, raw: Buffer): ReplayItem {
  const { header, payload } = splitHeader(raw);
  const text = payload.toString('utf8');
  if (/^\s*</.test(text)) {
    try {
      const report = parseXml(payload);
      const time =
        report.textAt('Head/ReportDateTime')?.trim() ?? report.textAt('Control/DateTime')?.trim() ?? '';
      const issuedMs = Date.parse(time);
      if (Number.isNaN(issuedMs)) return { path, skipped: 'no report time to re-stamp' };
      const pressMs = Date.parse(report.textAt('Control/DateTime')?.trim() ?? '');
      return { path, kind: 'xml', issuedMs, pressMs: Number.isNaN(pressMs) ? issuedMs : pressMs };
    } catch (err) {
      return { path, skipped: (err as Error).message };
    }
  }
  if (header) {
    const issuedMs = resolveHeaderTime(header, Date.now()).getTime();
    return { path, kind: 'header', issuedMs, pressMs: issuedMs };
  }
  return { path, skipped: 'no time to re-stamp (A/N or binary without a JMA header)' };
}

/** Replayable items in issue order; the same issue time by Control/DateTime, then path order. */
export function replayOrder(items: ReplayItem[]): Replayable[] {
  return items
    .filter((i): i is Replayable => 'kind' in i)
    .sort((a, b) => a.issuedMs - b.issuedMs || a.pressMs - b.pressMs);
}

/** The longest wait between two telegrams of a replay, at its speed, unless it keeps real time. */
export const MAX_REPLAY_GAP_MS = 3000;

/**
 * When each telegram is due, in ms after the first before `speed` divides it: the original gaps,
 * each cut to MAX_REPLAY_GAP_MS at that speed unless `realTime` (a sample spanning months would
 * otherwise wait months, and one spanning hours shows nothing for hours).
 */
export function replaySchedule(ordered: readonly Replayable[], speed: number, realTime: boolean): number[] {
  let offsetMs = 0;
  return ordered.map((item, i) => {
    const gapMs = i === 0 ? 0 : item.issuedMs - ordered[i - 1]!.issuedMs;
    offsetMs += realTime ? gapMs : Math.min(gapMs, MAX_REPLAY_GAP_MS * speed);
    return offsetMs;
  });
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A time written as the original (same offset, same precision), moved by `shiftMs`. */
function shiftTime(local: string, offset: string, shiftMs: number): string {
  const ms = Date.parse(local + offset) + shiftMs;
  const offsetMin =
    offset === 'Z'
      ? 0
      : (offset[0] === '-' ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4)));
  const t = new Date(ms + offsetMin * 60_000);
  const date = `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
  let time = `${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}`;
  if (local.length > 16) time += `:${pad(t.getUTCSeconds())}`;
  const fraction = /\.(\d+)$/.exec(local)?.[1];
  if (fraction)
    time += `.${pad(t.getUTCMilliseconds(), 3).padEnd(fraction.length, '0').slice(0, fraction.length)}`;
  return `${date}T${time}${offset}`;
}

/** JMA's EventID of an origin time: JST, `yyyyMMddHHmmss`. */
const eventIdAt = (ms: number) =>
  new Date(ms + 9 * 3_600_000).toISOString().slice(0, 19).replace(/[-T:]/g, '');

/** The new EventID of an original one: its origin time moved by `shiftMs`, once per run (`eventIds`). */
function movedEventId(id: string, shiftMs: number, eventIds: Map<string, string>): string {
  const known = eventIds.get(id);
  if (known !== undefined) return known;
  const origin = Date.parse(
    `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T${id.slice(8, 10)}:${id.slice(10, 12)}:${id.slice(12)}+09:00`,
  );
  // Fourteen digits that are no time are not an origin time: kept.
  if (Number.isNaN(origin)) return id;
  const taken = new Set(eventIds.values());
  // Two events whose new ids would meet keep apart by a second.
  let movedMs = origin + shiftMs;
  while (taken.has(eventIdAt(movedMs))) movedMs += 1000;
  eventIds.set(id, eventIdAt(movedMs));
  return eventIdAt(movedMs);
}

/**
 * Re-stamps one telegram, `raw` its bytes. XML: every element holding an ISO 8601 time moves by the same whole
 * seconds, so that the issue time becomes `nowMs`; each 14-digit EventID (an origin time) is replaced
 * through `eventIds`, so that the telegrams of one original event share one new EventID; `asTest`
 * sets Control/Status to 訓練. A/N and binary: the JMA header's day, hour and minute become
 * `nowMs`'s (UTC); latin1 maps every byte to itself, so the rest of the bytes stay as they were.
 */
export function restamp(
  item: Replayable,
  raw: Buffer,
  nowMs: number,
  eventIds: Map<string, string>,
  asTest: boolean,
): Buffer {
  const shiftMs = Math.round((nowMs - item.issuedMs) / 1000) * 1000;
  if (item.kind === 'header') {
    const now = new Date(nowMs);
    const stamp = `${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}`;
    const text = raw
      .toString('latin1')
      .replace(/^([^A-Z]{0,4}[A-Z]{4}(?:[0-9]{2}|ii) [A-Z]{4} )\d{6}/, `$1${stamp}`);
    return Buffer.from(text, 'latin1');
  }
  let xml = raw
    .toString('utf8')
    .replace(ELEMENT_TIME, (_m, local: string, offset: string) => `>${shiftTime(local, offset, shiftMs)}<`)
    .replace(
      EVENT_IDS,
      (_m, ids: string) =>
        `<EventID>${ids.replace(/\d{14}/g, (id) => movedEventId(id, shiftMs, eventIds))}</EventID>`,
    );
  if (asTest) xml = xml.replace(CONTROL_STATUS, '$1訓練$3');
  return Buffer.from(xml, 'utf8');
}
