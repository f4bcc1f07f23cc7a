import { setTimeout as sleep } from 'node:timers/promises';
import { ingestTelegram, type IngestDeps, type IngestOutcome } from '../telegrams/ingest.ts';

/** One telegram of a timed run: when it is due (ms after the run starts, before `speed`) and how to make it. */
export interface Due<T> {
  offsetMs: number;
  item: T;
}

/**
 * Ingests telegrams at their due times divided by `speed`, in order (a late one never overtakes an
 * earlier one). `make` builds the bytes at the moment of ingest, so times can be stamped to that
 * moment; it returns null to skip an item. Calls `done` with each outcome. `signal` stops it
 * before the next telegram (the one being stored finishes): it then rejects with the signal's reason.
 */
export async function ingestTimed<T>(
  deps: IngestDeps,
  due: readonly Due<T>[],
  speed: number,
  make: (item: T, nowMs: number) => { raw: Buffer; fileName?: string } | null,
  done: (item: T, outcome: IngestOutcome | null) => void,
  signal?: AbortSignal,
): Promise<void> {
  const start = Date.now();
  for (const { offsetMs, item } of due) {
    signal?.throwIfAborted();
    const wait = start + offsetMs / speed - Date.now();
    if (wait > 0)
      await sleep(wait, undefined, signal ? { signal } : undefined).catch(() => signal?.throwIfAborted());
    const now = Date.now();
    const made = make(item, now);
    if (made === null) {
      done(item, null);
      continue;
    }
    const hints = { receivedTime: now, ...(made.fileName !== undefined ? { fileName: made.fileName } : {}) };
    done(item, await ingestTelegram(deps, made.raw, hints));
  }
}
