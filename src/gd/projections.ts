import type { TelegramJSONMain } from '@dmdata/telegram-json-types';
import type { Queryable, StatementAfter } from '../db/types.ts';
import { entersEarthquakeEvents } from './earthquake-merge.ts';
import { recordEarthquakeReport } from './earthquake-store.ts';
import { eewReportAfterStore, entersEewRecords, recordEewReport } from './eew.ts';
import type { EarthquakeDocument, EewDocument, ProjectionInput, ProjectionSource } from './types.ts';

/**
 * Records any converted document in the projection its schema feeds (earthquake-information and
 * earthquake-hypocenter-update → earthquake events, eew-information → early warnings); documents
 * of other schemas are ignored. Returns the projection the document entered, or null.
 */
export async function recordGdReport(
  q: Queryable,
  input: ProjectionInput<TelegramJSONMain>,
): Promise<'earthquake' | 'eew' | null> {
  switch (input.document._schema.type) {
    case 'earthquake-information':
    case 'earthquake-hypocenter-update':
      return (await recordEarthquakeReport(q, { ...input, document: input.document as EarthquakeDocument }))
        ? 'earthquake'
        : null;
    case 'eew-information':
      return (await recordEewReport(q, { ...input, document: input.document as EewDocument })) ? 'eew' : null;
    default:
      return null;
  }
}

/**
 * Whether recordGdReport would record this document (pure: no I/O). Ingest stores a conversion that
 * feeds no projection in a single statement, without a transaction around it.
 */
export function entersGdProjection(input: ProjectionSource): boolean {
  switch (input.document._schema.type) {
    case 'earthquake-information':
    case 'earthquake-hypocenter-update':
      return entersEarthquakeEvents({ ...input, document: input.document as EarthquakeDocument });
    case 'eew-information':
      return entersEewRecords({ ...input, document: input.document as EewDocument });
    default:
      return false;
  }
}

/**
 * Where recording a document is one statement that needs nothing but the stored conversion's serial
 * and id (a non-final early warning: docs/gd.md), that statement, for ingest to run in the same
 * statement as the store (`from`: the row source of the stored conversion; parameters from `$first`).
 * Null where recordGdReport is needed, in the store's transaction.
 */
export function gdReportAfterStore(
  input: ProjectionSource & { receivedTime: string },
): StatementAfter | null {
  return input.document._schema.type === 'eew-information'
    ? eewReportAfterStore({ ...input, document: input.document as EewDocument })
    : null;
}

const GD_TABLES = 'gd_earthquake_reports, gd_earthquake_events, gd_eew_reports, gd_eew_events';

/** Empties both projections (the first step of a rebuild). */
export async function clearGdProjections(q: Queryable): Promise<void> {
  await q.query(`TRUNCATE ${GD_TABLES}`);
}

/**
 * Takes the lock recordGdReport's writes take, up front in the caller's transaction: ingest does so
 * before it takes its own lock, so that while a rebuild holds the projections (clearGdProjections to
 * COMMIT) a telegram that enters them waits without holding every other telegram's ingest behind it.
 */
export async function lockGdProjectionsForWrite(q: Queryable): Promise<void> {
  await q.query(`LOCK TABLE ${GD_TABLES} IN ROW EXCLUSIVE MODE`);
}

/**
 * Re-derives both projections from stored JSON telegrams: empties them and records every document
 * given. The projections are pure functions of the recorded reports (docs/gd.md), so the result
 * does not depend on the order of `inputs`; run it in one transaction so readers never see a
 * half-built projection. Returns how many documents entered each projection.
 */
export async function rebuildGdProjections(
  q: Queryable,
  inputs: Iterable<ProjectionInput<TelegramJSONMain>> | AsyncIterable<ProjectionInput<TelegramJSONMain>>,
): Promise<{ earthquake: number; eew: number }> {
  await clearGdProjections(q);
  const counts = { earthquake: 0, eew: 0 };
  for await (const input of inputs) {
    const entered = await recordGdReport(q, input);
    if (entered) counts[entered] += 1;
  }
  return counts;
}
