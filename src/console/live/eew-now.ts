import type { Queryable } from '../../db/types.ts';
import type { TelegramCache } from '../../telegrams/cache.ts';
import { loadTelegram, queryTelegrams } from '../../telegrams/store.ts';
import { EEW_TYPES, payloadOf, type EewBanner } from './payloads.ts';

/**
 * How long an early warning stays in effect after its newest report was received, for a live view
 * that opens then and one left open alike (docs/console-live.md "EEW banner"). JMA's reports of one
 * earthquake follow each other within seconds and end within about two minutes of its detection;
 * three minutes after the newest report, its shaking has passed everywhere it warned of.
 */
export const EEW_IN_EFFECT_MS = 3 * 60_000;

/**
 * A report's banner as a page receives it, with the time it has left by the server's clock: the page
 * counts that down and never reads its own clock, which may be wrong.
 */
export interface TimedEewBanner extends EewBanner {
  /** Milliseconds from now until EEW_IN_EFFECT_MS after the report was received. */
  inEffectMs: number;
}

/** The report's banner with the time it has left at `now`; null once that time is over. */
export function inEffectAt(banner: EewBanner, now: number): TimedEewBanner | null {
  const inEffectMs = Date.parse(banner.receivedTime) + EEW_IN_EFFECT_MS - now;
  return inEffectMs > 0 ? { ...banner, inEffectMs } : null;
}

const EEW_CLASSIFICATIONS = ['eew.forecast', 'eew.warning'];
/** Reports read at most: two or three events' worth, at a report every second or two. */
const RECENT_REPORTS = 200;

/**
 * The early warning in effect at `now` among the reports up to `position` the account sees: the
 * newest report of the newest event whose newest report came in the last EEW_IN_EFFECT_MS and is
 * not a cancellation (取消). A final report (最終報) stays until its time is over, as any other:
 * the shaking it warns of may still be on its way. Null when none is.
 */
export async function eewInEffect(
  q: Queryable,
  cache: TelegramCache,
  contracted: ReadonlySet<string>,
  position: number,
  now: number,
): Promise<TimedEewBanner | null> {
  const classifications = EEW_CLASSIFICATIONS.filter((c) => contracted.has(c));
  if (classifications.length === 0) return null;
  const reports = await queryTelegrams(q, {
    classifications,
    types: { exact: EEW_TYPES },
    test: 'including',
    formats: ['json'],
    receivedFrom: new Date(now - EEW_IN_EFFECT_MS),
    before: position + 1,
    limit: RECENT_REPORTS,
    withXmlReport: false,
  });
  // Newest first: the first report of each event is its newest.
  const events = new Set<string>();
  for (const report of reports) {
    const event = report.facts?.event ?? `serial:${report.serial}`;
    if (events.has(event)) continue;
    events.add(event);
    const record = cache.get(report.serial) ?? (await loadTelegram(q, report.serial));
    const payload = record ? payloadOf(record) : null;
    if (payload?.event === 'eew' && !payload.data.isCanceled) return inEffectAt(payload.data, now);
  }
  return null;
}
