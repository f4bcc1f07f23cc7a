/**
 * What the transport says about a telegram: the JMA bulletin header line (`VXSE53 RJTD 110000`,
 * optionally followed by a designation such as `CCA`) in front of the body, or the name of a JMA
 * feed or archive file.
 */
export interface TransportHeader {
  type: string;
  author: string;
  /** Day of month, hour, minute (UTC) of the header's `YYGGgg`. */
  day: number;
  hour: number;
  minute: number;
  designation: string | null;
}

const HEADER =
  /^([A-Z]{4}[0-9]{2}|[A-Z]{4}ii) ([A-Z]{4}) ([0-9]{2})([0-9]{2})([0-9]{2})(?: ([A-Z]{3}))?[ ]*\r*\n/;
const SOH = 0x01;
/** Longest header line considered (the line itself is about 25 bytes). */
const HEADER_WINDOW = 64;

/** Splits a leading bulletin header from the payload; header null when there is none. */
export function splitHeader(raw: Buffer): { header: TransportHeader | null; payload: Buffer } {
  let start = 0;
  // The JMA socket frames bulletins as SOH CR CR LF <header> CR CR LF …
  if (raw[0] === SOH) start = 1;
  while (raw[start] === 0x0d || raw[start] === 0x0a) start++;
  const head = raw.subarray(start, start + HEADER_WINDOW).toString('latin1');
  const m = HEADER.exec(head);
  if (!m) return { header: null, payload: raw };
  const [line, type, author, dd, hh, mm, designation] = m;
  const header: TransportHeader = {
    type: type!,
    author: author!,
    day: Number(dd),
    hour: Number(hh),
    minute: Number(mm),
    designation: designation ?? null,
  };
  if (header.day < 1 || header.day > 31 || header.hour > 23 || header.minute > 59) {
    return { header: null, payload: raw };
  }
  return { header, payload: raw.subarray(start + Buffer.byteLength(line, 'latin1')) };
}

const TYPE = '([A-Z]{4}(?:[0-9]{2}|ii))';
const FILE_NAMES: RegExp[] = [
  // JMA XML feed: 20210217140808_0_VXSE51_010000.xml (office number last); also …_VXSE51_RJTD.xml
  new RegExp(`_${TYPE}_(?:[0-9]{6}|([A-Z]{4}))\\.xml$`),
  // JMA sample set and archives: 32-35_01_01_100806_VXSE51.xml, 20230410231623_04156158_VXSE53.xml
  new RegExp(`_${TYPE}\\.xml$`),
];

/** Type (and author, when the name carries it) from a telegram file name. */
export function fromFileName(name: string): { type: string; author: string | null } | null {
  const base = name.slice(name.lastIndexOf('/') + 1);
  for (const pattern of FILE_NAMES) {
    const m = pattern.exec(base);
    if (m) return { type: m[1]!, author: m[2] ?? null };
  }
  return null;
}

/**
 * How far a header's time may lie after the reference time: a bulletin is issued after its report
 * time, by minutes (and a clock may run a little ahead), never by days.
 */
const HEADER_AHEAD_MS = 86_400_000;

/**
 * The full UTC time of a header's day/hour/minute: the latest month that does not put it after the
 * reference time (by more than HEADER_AHEAD_MS). A bulletin cannot have been issued in the future:
 * on the 29th, day 11 is the 11th of this month, not of the next, however near that would be.
 */
export function resolveHeaderTime(h: TransportHeader, referenceMs: number): Date {
  const ref = new Date(referenceMs);
  let best: Date | null = null;
  // Two months back always hold the day (one of any two consecutive months has 31 days).
  for (const delta of [-2, -1, 0, 1]) {
    const candidate = new Date(
      Date.UTC(ref.getUTCFullYear(), ref.getUTCMonth() + delta, h.day, h.hour, h.minute),
    );
    if (candidate.getUTCDate() !== h.day) continue; // day does not exist in that month
    if (candidate.getTime() > referenceMs + HEADER_AHEAD_MS) continue;
    if (!best || candidate > best) best = candidate;
  }
  return best!;
}
