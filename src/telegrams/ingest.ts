import { availableParallelism } from 'node:os';
import { busCodecs } from '../bus/codecs.ts';
import { channels, type Bus } from '../bus/types.ts';
import { converterFor } from '../conversion/registry.ts';
import type { SchemaRef } from '../conversion/types.ts';
import type { Db } from '../db/types.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { gdReportAfterStore, lockGdProjectionsForWrite, recordGdReport } from '../gd/projections.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import { overBudgetReason, prepareBudgetMs, type PrepareBudget } from './budget.ts';
import {
  prepareForIngest,
  prepareUnconverted,
  type IngestHints,
  type PreparedConversion,
  type PreparedTelegram,
  type Ready,
} from './prepare.ts';
import { PrepareOverBudget, PreparePool } from './prepare-pool.ts';
import { countIngested, type IngestMetrics, type IngestSource } from './ingest-metrics.ts';
import { maxTelegramBytes, OFF_LOOP_BYTES, tooLargeReason, type SizeLimit } from './size.ts';
import {
  committedRecord,
  findStored,
  storeTelegram,
  storeTelegramWithConversion,
  type Announcement,
  type StoredTelegram,
} from './store.ts';
import type { TelegramCache } from './cache.ts';
import { withEventFacts } from './event-facts.ts';
import { recordFragment, recordNotice } from './announced-record.ts';

/** A conversion that was attempted and failed: the XML was stored and delivered without it. */
export interface ConversionFailure {
  schema: SchemaRef;
  reason: string;
}

export type IngestOutcome =
  | {
      ok: true;
      stored: StoredTelegram;
      /** The JSON conversion stored with it (absent for duplicates and types without a converter). */
      converted?: StoredTelegram & { schema: SchemaRef };
      conversionFailure?: ConversionFailure;
      /** The data type of a newly stored XML telegram for which no converter exists. */
      withoutConverter?: string;
    }
  | { ok: false; reason: string };

/**
 * What ingest needs of its process: the database and bus; `log`, when given, hears of announcements
 * that failed (the telegram is stored all the same), of failed conversions and of telegrams refused
 * for their size; `metrics`, when given (a serving process), counts every stored telegram by
 * `source` (ingest-metrics.ts); `config` sets the size limit (size.ts) and the time budget of a
 * preparation (budget.ts).
 */
export type IngestDeps = SizeLimit &
  PrepareBudget & {
    db: Db;
    bus: Bus;
    log?: Pick<Logger, 'warn'>;
    metrics?: IngestMetrics & Partial<Pick<Metrics, 'preparationsOverBudget'>>;
    source?: IngestSource;
    /**
     * The serving process's telegram cache (AppContext.telegrams): a commit is handed to it, and
     * through it to the process's deliveries, before it is announced (cache.ts `committed`).
     */
    telegrams?: Pick<TelegramCache, 'committed' | 'catchUp'>;
    /** The runners a serving process prepares large telegrams on; without them, they are prepared here. */
    preparePools?: PreparePools;
  };

/**
 * The ingest pipeline every source uses: prepare (parse, classify, identify, convert), store the
 * telegram and its JSON conversion in one transaction, and after COMMIT announce the new serials on
 * the bus. Invalid input stores nothing; a failed conversion never fails the XML (docs/conversion.md).
 * A telegram of OFF_LOOP_BYTES or more is prepared in a child process, so that the event loop stays
 * free for smaller telegrams (an early warning) meanwhile (docs/telegrams.md "Size"); one that runs
 * over the time budget is stored without its conversion (docs/telegrams.md "Time budget"). Once it has
 * settled, nothing refers to `raw` any more (the database has its copy; caches and deliveries read
 * from there): the caller may read other bytes into that memory.
 */
export async function ingestTelegram(
  deps: IngestDeps,
  raw: Buffer,
  hints: IngestHints,
): Promise<IngestOutcome> {
  const refused = refuseTooLarge(deps, raw);
  if (refused) return refused;
  const offLoop = raw.length >= OFF_LOOP_BYTES ? prepareOffLoop(deps, raw, hints) : null;
  const outcome = await commit(deps, offLoop ? await offLoop : prepareForIngest(raw, hints));
  if (outcome.ok) await deps.telegrams?.catchUp(newestSerialOf(outcome));
  return outcome;
}

/** The highest serial an outcome stored or found. */
const newestSerialOf = (outcome: IngestOutcome & { ok: true }) =>
  Math.max(outcome.stored.serial, outcome.converted?.serial ?? 0);

/** A telegram over the limit: refused before anything reads it, logged and counted. */
function refuseTooLarge(deps: IngestDeps, raw: Buffer): { ok: false; reason: string } | null {
  const limit = maxTelegramBytes(deps);
  if (raw.length <= limit) return null;
  deps.metrics?.telegramsTooLarge.inc({ path: 'ingest' });
  deps.log?.warn({ bytes: raw.length, limit }, 'telegram refused: larger than the limit');
  return { ok: false, reason: tooLargeReason(limit) };
}

/**
 * A large telegram prepared by a child process (by a worker thread when no process can start, inline
 * when neither can run it), or null without either.
 */
function prepareOffLoop(deps: IngestDeps, raw: Buffer, hints: IngestHints): Promise<Ready> | null {
  const options = { budgetMs: prepareBudgetMs(deps) };
  if (!deps.preparePools) return null;
  const { live, bulk } = deps.preparePools;
  for (const pool of [live, bulk]) {
    const offLoop = pool.prepare(raw, hints, true, true, options);
    if (offLoop) return offLoop.catch((err: unknown) => preparedAfterFailure(deps, pool, raw, hints, err));
  }
  return null;
}

/**
 * A telegram whose preparation in a runner of `pool` failed. Over the time budget, it is logged,
 * counted and prepared again without its conversion, which is bounded work (prepare.ts
 * `prepareUnconverted`): in a runner, or here when none can take it or that fails too. After any
 * other failure (its runner died), it is prepared here as a whole.
 */
function preparedAfterFailure(
  deps: IngestDeps,
  pool: Pick<PreparePool, 'prepare'>,
  raw: Buffer,
  hints: IngestHints,
  err: unknown,
): Ready | Promise<Ready> {
  if (!(err instanceof PrepareOverBudget)) return prepareForIngest(raw, hints);
  const budgetMs = prepareBudgetMs(deps);
  deps.metrics?.preparationsOverBudget?.inc();
  deps.log?.warn(
    { bytes: raw.length, budgetMs },
    'telegram preparation over the time budget: stored unconverted',
  );
  const reason = overBudgetReason(budgetMs);
  const here = () => prepareUnconverted(raw, hints, reason);
  return (
    pool.prepare(raw, hints, true, true, { budgetMs, unconvertedBecause: reason })?.catch(here) ?? here()
  );
}

/**
 * The runners ingest prepares on, owned by a serving process (AppContext.preparePools). `live`: child
 * processes for live telegrams too large for the event loop: a process's collections run on
 * collector threads of its own, below the event loop's, where a thread's would share the event
 * loop's (docs/telegrams.md, "Size"). Two on any machine, so that a telegram waits behind another
 * only while two are in progress, each for its time budget at most ("Time budget"); more would hold
 * memory for little. `bulk`: worker threads for bulk ingest, every core but the one that stores
 * (docs/telegrams.md, "Bulk ingest"). Runners start on first use and stop when idle.
 */
export interface PreparePools {
  live: PreparePool;
  bulk: PreparePool;
}

export function createPreparePools(): PreparePools {
  return { live: new PreparePool(2, 'process'), bulk: bulkPool() };
}

const bulkPool = () => new PreparePool(Math.min(4, availableParallelism() - 1));

/** How far bulk ingest reads ahead of the telegram it stores: per worker, and in input bytes. */
const AHEAD_MOST_TELEGRAMS = 64;
const AHEAD_MOST_BYTES = 16 * 1024 * 1024;

/**
 * Ingests telegrams in order (files, archives): the next ones are prepared while one is stored, in
 * the pool's workers on the other cores once they have started (on this thread before, and where
 * there is one core), so parsing and converting overlap the database work. Stores one at a time, in
 * order, as ingestTelegram does; calls `done` with each outcome, in order. The pool is the
 * process's bulk pool, or one of this call's own when it has none (a command, a script).
 */
export async function ingestInOrder(
  deps: IngestDeps,
  items: Iterable<{ raw: Buffer; hints: IngestHints }>,
  done: (outcome: IngestOutcome, index: number) => void,
  pool?: Pick<PreparePool, 'size' | 'prepare'>,
): Promise<void> {
  const given = pool ?? deps.preparePools?.bulk;
  if (given) return ingestInPool(deps, items, done, given);
  const own = bulkPool();
  try {
    await ingestInPool(deps, items, done, own);
  } finally {
    await own.close();
  }
}

async function ingestInPool(
  deps: IngestDeps,
  items: Iterable<{ raw: Buffer; hints: IngestHints }>,
  done: (outcome: IngestOutcome, index: number) => void,
  pool: Pick<PreparePool, 'size' | 'prepare'>,
): Promise<void> {
  // Telegrams are prepared far enough ahead that the workers run on through a stretch of telegrams
  // that take longer to prepare than to store (large forecasts, long tsunami lists), and the bytes
  // in flight are bounded.
  const ahead: { ready: Promise<Ready>; bytes: number }[] = [];
  let aheadBytes = 0;
  let storing: Promise<void> = Promise.resolve();
  let index = 0;
  let newest = 0;
  // While this thread's event loop is idle more than half the time (waiting for the workers or the
  // database), it has time to spare: it compresses and identifies the telegrams it posts next
  // itself, which moves that work to whichever side waits (docs/telegrams.md, "Bulk ingest").
  let loop = performance.eventLoopUtilization();
  let spare = false;
  const budgetMs = prepareBudgetMs(deps);
  const storeOldest = async () => {
    await storing;
    const now = performance.eventLoopUtilization();
    spare = performance.eventLoopUtilization(now, loop).utilization < 0.5;
    loop = now;
    const oldest = ahead.shift()!;
    aheadBytes -= oldest.bytes;
    const ready = await oldest.ready;
    storing = commit(deps, ready).then((outcome) => {
      if (outcome.ok) newest = Math.max(newest, newestSerialOf(outcome));
      done(outcome, index++);
    });
  };
  try {
    for (const { raw, hints } of items) {
      const refused = refuseTooLarge(deps, raw);
      // A worker that failed leaves its telegram to this thread, as does a pool without workers. A
      // large telegram waits for a worker and is compressed there: it would stall this thread.
      const large = raw.length >= OFF_LOOP_BYTES;
      const inWorker = refused
        ? Promise.resolve(refused)
        : pool.prepare(raw, hints, !spare || large, large, { budgetMs });
      const ready = inWorker?.catch((err: unknown) => preparedAfterFailure(deps, pool, raw, hints, err));
      ahead.push({ ready: ready ?? Promise.resolve(prepareForIngest(raw, hints)), bytes: raw.length });
      aheadBytes += raw.length;
      while (ahead.length > AHEAD_MOST_TELEGRAMS * pool.size || aheadBytes > AHEAD_MOST_BYTES) {
        await storeOldest();
      }
    }
    while (ahead.length > 0) await storeOldest();
    await storing;
    // Caught up once at the end, not per telegram: a bulk ingest is acknowledged as a whole.
    await deps.telegrams?.catchUp(newest);
  } catch (err) {
    // Reading the items failed, or a store: the telegram being stored settles before this returns.
    await storing.catch(() => {});
    throw err;
  } finally {
    // After a failure, the telegrams prepared ahead are dropped unstored: their outcomes are not wanted.
    for (const left of ahead) left.ready.catch(() => {});
  }
}

async function commit(deps: IngestDeps, prepared: Ready): Promise<IngestOutcome> {
  if (!prepared.ok) return prepared;
  const ready = await withEventFacts(deps.db, prepared);
  // The records as the store will give them back, their serials drawn by the statement: built once,
  // for the notices that carry them and for this process's cache.
  const unnumbered = [ready.telegram, ...(ready.conversion?.ok ? [ready.conversion.telegram] : [])].map((t) =>
    committedRecord(t, 0),
  );
  // On a PostgreSQL bus the statement announces its own rows, at COMMIT (store.ts `announceOn`).
  const notices = deps.bus.commitNotices;
  const announceOn = notices && {
    channel: channels.telegram,
    suffix: notices.ownSuffix,
    fragments: unnumbered.map((r) => recordFragment(r, notices.ownSuffix)),
  };
  const outcome = await store(deps.db, ready, announceOn);
  if (deps.metrics) countIngested(deps.metrics, outcome, deps);
  if (!outcome.stored.duplicate) {
    // Held by this process's cache before it is announced here, so that neither the delivery nor a
    // list reads back what was just written (cache.ts). A conversion is stored only with its XML.
    const { stored, converted } = outcome;
    const serials = converted ? [stored.serial, converted.serial] : [stored.serial];
    const records = serials.map((serial, i) => ({ ...unnumbered[i]!, serial }));
    deps.telegrams?.committed(stored.serial, () => records);
    // The statement's own notice reaches other processes; this one's bus leaves it to this call.
    if (notices) for (const serial of serials) busCodecs.telegram.deliverHere(notices, { serial });
    // Other processes hear it: the notice carries the record when it fits (announced-record.ts).
    else if (!deps.bus.inProcess)
      for (const record of records) announce(deps, record.serial, recordNotice(record));
    else for (const serial of serials) announce(deps, serial, busCodecs.telegram.encode({ serial }));
  }
  return outcome;
}

/**
 * The announcement only wakes other processes up, so ingest does not wait for it: when the bus is
 * down or slow (a Redis client queues while it reconnects) the telegram is stored and acknowledged
 * all the same, and the healing timers deliver it (docs/realtime.md, "Gap-free delivery").
 */
function announce(deps: IngestDeps, serial: number, notice: string): void {
  deps.bus.publish(channels.telegram, notice).catch((err: unknown) => {
    deps.log?.warn({ err, serial }, 'telegram announcement failed; delivery will pick it up');
  });
}

async function store(
  db: Db,
  ready: Ready & { ok: true },
  announceOn: Announcement | undefined,
): Promise<IngestOutcome & { ok: true }> {
  const { telegram, conversion } = ready;
  try {
    // Nothing to convert: one statement, its own transaction.
    if (conversion === null) {
      const stored = await storeTelegram(db, telegram, { announceOn });
      const { format, head } = telegram;
      return !stored.duplicate && format === 'xml' && !converterFor(head.type)
        ? { ok: true, stored, withoutConverter: head.type }
        : { ok: true, stored };
    }
    if (!conversion.ok) {
      return {
        ok: true,
        stored: await storeTelegram(db, telegram, { announceOn }),
        conversionFailure: conversion,
      };
    }
    try {
      return await storeWithConversion(db, telegram, conversion, announceOn);
    } catch (err) {
      // A duplicate, or a database out of reach (a restart, a failover): not the conversion's fault.
      // Stored alone, the XML would keep no conversion for good (its retry is a duplicate); failed,
      // it is stored with it when its source tries again.
      if ((err as { code?: string }).code === '23505' || isDatabaseUnavailable(err)) throw err;
      // The conversion or a projection failed: nothing of that transaction remains. The XML alone
      // is stored after all, so a converter or projection bug never loses a telegram.
      const stored = await storeTelegram(db, telegram, { announceOn });
      return {
        ok: true,
        stored,
        conversionFailure: { schema: conversion.schema, reason: (err as Error).message },
      };
    }
  } catch (err) {
    // Stored concurrently by another process between our snapshot and our lock: a duplicate.
    const existing = (err as { code?: string }).code === '23505' ? await findStored(db, telegram) : null;
    if (!existing) throw err;
    return { ok: true, stored: existing };
  }
}

/**
 * The XML telegram, its JSON conversion and the projections it feeds (earthquake events, early
 * warnings) commit together or not at all. The two telegrams are one statement; a conversion that
 * feeds no projection (most of them), or whose projection is one insert (an early warning that is
 * not final), needs no other, so that statement is its own transaction and the whole ingest is one
 * round trip, as for a telegram without conversion.
 */
async function storeWithConversion(
  db: Db,
  telegram: PreparedTelegram,
  conversion: PreparedConversion & { ok: true },
  announceOn: Announcement | undefined,
): Promise<IngestOutcome & { ok: true }> {
  const { projection } = conversion;
  const done = ({ stored, converted }: { stored: StoredTelegram; converted?: StoredTelegram }) =>
    converted
      ? { ok: true as const, stored, converted: { ...converted, schema: conversion.schema } }
      : { ok: true as const, stored };
  // A projection that is one insert (an early warning that is not final) goes in the same statement.
  const inStatement =
    projection && gdReportAfterStore({ ...projection, receivedTime: telegram.receivedTime });
  if (projection === null || inStatement) {
    return done(
      await storeTelegramWithConversion(db, telegram, conversion.telegram, {
        afterConversion: inStatement ?? undefined,
        announceOn,
      }),
    );
  }
  return db.tx(async (q) => {
    // Before the store's lock: a rebuild holding the projections holds up this telegram alone.
    await lockGdProjectionsForWrite(q);
    const outcome = await storeTelegramWithConversion(q, telegram, conversion.telegram, { announceOn });
    const { converted } = outcome;
    if (converted) {
      await recordGdReport(q, {
        ...projection,
        telegram: { serial: converted.serial, id: converted.id, receivedTime: telegram.receivedTime },
      });
    }
    return done(outcome);
  });
}
