import { DEFAULT_MAX_TELEGRAM_BYTES } from '../config.ts';

/**
 * The largest telegram ingest takes (docs/telegrams.md "Size"): NAMAZU_MAX_TELEGRAM_BYTES from the
 * configuration of the process that ingests, or its default where none is given (tools, tests).
 */
export type SizeLimit = { config?: { maxTelegramBytes: number } };

export const maxTelegramBytes = (deps: SizeLimit): number =>
  deps.config?.maxTelegramBytes ?? DEFAULT_MAX_TELEGRAM_BYTES;

/** The documented reason a telegram over the limit is refused with, on every path. */
export const tooLargeReason = (limit: number): string => `telegram larger than ${limit} bytes`;

/**
 * Telegrams from this size on are read and converted in a worker thread, not on the event loop
 * (docs/telegrams.md "Size"): preparing one of this size inline takes about a millisecond.
 */
export const OFF_LOOP_BYTES = 64 * 1024;
