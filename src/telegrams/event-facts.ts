// The facts of a telegram joined with those of its event's earlier telegrams (docs/realtime.md
// "Filters by place and strength"): a telegram admitted by a filter admits every later telegram of
// its event, so that its updates, its cancellation (取消) and its end (the final warning, a tsunami
// warning lifted) reach every connection that received the start, whatever the filter, whichever
// process delivers it, live or on a resume.
import type { Queryable } from '../db/types.ts';
import { higherIntensity, type TelegramFacts } from './facts.ts';
import type { Ready } from './prepare.ts';

/** Most earlier telegrams of one event read (an early warning has a few dozen; a tsunami event, more). */
const MOST_EARLIER = 1000;

/** Joins facts: every area of either, the higher intensity. */
export function joinFacts(own: TelegramFacts, earlier: readonly TelegramFacts[]): TelegramFacts {
  const areas = new Set(own.areas);
  let maxIntensity = own.maxIntensity;
  for (const f of earlier) {
    for (const a of f.areas) areas.add(a);
    maxIntensity = higherIntensity(maxIntensity, f.maxIntensity);
  }
  return { ...own, areas: [...areas].sort(), ...(maxIntensity !== undefined ? { maxIntensity } : {}) };
}

/**
 * The event keys an earlier telegram of this event may carry. A tsunami that a later earthquake
 * joins carries both EventIDs, space-separated ("A B"), its earlier telegrams the first alone ("A"):
 * the keys of each EventID and of each leading run of them.
 */
export function earlierEventKeys(event: string): string[] {
  const colon = event.lastIndexOf(':');
  const kind = event.slice(0, colon);
  const ids = event.slice(colon + 1).split(' ');
  const keys = new Set([event]);
  ids.forEach((id, i) => {
    keys.add(`${kind}:${id}`);
    keys.add(`${kind}:${ids.slice(0, i + 1).join(' ')}`);
  });
  return [...keys];
}

/**
 * The telegram and its conversion with the facts of the stored telegrams of the same event. Read
 * before the telegram is stored: telegrams of one event come in order from one source.
 */
export async function withEventFacts(
  q: Queryable,
  ready: Ready & { ok: true },
): Promise<Ready & { ok: true }> {
  const own = ready.telegram.facts;
  if (!own?.event) return ready;
  // A weather or volcano warning names its own places, lifted ones included: only its
  // cancellation, which names none, needs those of the telegram it withdraws.
  if (own.kind === 'other' && ready.telegram.xmlReport?.head.infoType !== '取消') return ready;
  const rows = await q.query<{ facts: TelegramFacts }>(
    `SELECT facts FROM telegrams WHERE facts ? 'event' AND facts->>'event' = ANY($1::text[])
      AND format = 'xml' ORDER BY serial DESC LIMIT $2`,
    [earlierEventKeys(own.event), MOST_EARLIER],
  );
  if (rows.length === 0) return ready;
  const facts = joinFacts(
    own,
    rows.map((r) => r.facts),
  );
  const { conversion } = ready;
  return {
    ok: true,
    telegram: { ...ready.telegram, facts },
    conversion: conversion?.ok ? { ...conversion, telegram: { ...conversion.telegram, facts } } : conversion,
  };
}
