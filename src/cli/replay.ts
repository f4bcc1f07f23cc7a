import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  MAX_REPLAY_GAP_MS,
  replayItem,
  replayOrder,
  replaySchedule,
  restamp,
  type Replayable,
} from '../sources/replay.ts';
import { ingestTimed } from '../sources/timed-ingest.ts';
import { tooLargeReason } from '../telegrams/size.ts';
import { callAdminChannel } from './admin-client.ts';
import { databaseFlags, parseFlags, printJson, UsageError } from './args.ts';
import { DataDirServedError, noteUnserved, type CommandIo } from './database.ts';
import { namedFiles } from './files.ts';
import { usageError } from './usage.ts';

/**
 * namazu replay PATH… — ingests telegram files again in their original order and relative timing
 * (divided by --speed, each gap cut to MAX_REPLAY_GAP_MS unless --real-time), their times moved to
 * now (src/sources/replay.ts); --as-test marks them 訓練; --loop starts over after the last one until
 * interrupted. Prints a line per telegram on stderr as it is sent and, per pass,
 * {"ingested","duplicates","skipped":[{path,reason}],"rejected":[{path,reason}]}; a pass that
 * stops (Ctrl-C, or the server it runs in stops) prints what it did so far.
 */
export async function replayCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    {
      ...databaseFlags,
      speed: { type: 'string' },
      'as-test': { type: 'boolean' },
      'real-time': { type: 'boolean' },
      loop: { type: 'boolean' },
    },
    true,
  );
  if (positionals.length === 0) throw usageError('replay');
  const speed = values.speed === undefined ? 1 : Number(values.speed);
  if (!Number.isFinite(speed) || speed < 0.01 || speed > 100_000)
    throw new UsageError('--speed must be a number from 0.01 to 100000');
  const files = namedFiles(io.cwd, positionals);
  if (values.loop !== true) return replayPass(files, speed, values, io, io.signal);
  // Each pass is one command, so that beside a running server every pass runs there and the
  // server never holds an endless command. Ctrl-C ends the loop at once: the pass under way stops,
  // here or, as its channel closes, in the server.
  const once = argv.filter((a) => a !== '--loop');
  const interrupted = new AbortController();
  const stop = () => interrupted.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  const signal = io.signal ? AbortSignal.any([io.signal, interrupted.signal]) : interrupted.signal;
  try {
    while (!signal.aborted) {
      try {
        await replayPass(files, speed, values, io, signal);
      } catch (err) {
        if (!(err instanceof DataDirServedError)) throw err;
        const req = { command: 'replay', argv: once, cwd: io.cwd };
        const code = await callAdminChannel(err, req, io, signal);
        if (code !== 0) throw new Error(`replay pass failed (status ${code})`);
      }
      // Re-stamping moves times by whole seconds: a pass begun within a second of the previous one's
      // last telegram could stamp a telegram as that pass did, making the same bytes, a duplicate.
      await sleep(PASS_GAP_MS, undefined, { signal }).catch(() => {});
    }
  } catch (err) {
    // Interrupted is how a loop ends: the passes done stand, and so does the status.
    if (!interrupted.signal.aborted) throw err;
  } finally {
    process.off('SIGINT', stop);
  }
}

/** A planned file's bytes when it is sent; null when it is gone meanwhile. */
function readAgain(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

/** The wait between two passes of --loop, so that every telegram of a pass is stamped a second later. */
const PASS_GAP_MS = 1000;

/** The first line of a pass: how many telegrams, the time they spanned and the time they will take. */
function planLine(ordered: Replayable[], offsets: number[], speed: number, realTime: boolean): string {
  const spanS = ordered.length > 1 ? (ordered.at(-1)!.issuedMs - ordered[0]!.issuedMs) / 1000 : 0;
  const takesS = (offsets.at(-1) ?? 0) / speed / 1000;
  const cut = realTime ? '' : `, gaps over ${MAX_REPLAY_GAP_MS / 1000} s cut (--real-time keeps them)`;
  return (
    `namazu replay: ${ordered.length} telegram${ordered.length === 1 ? '' : 's'} issued over ${duration(spanS)}, ` +
    `sent over ${duration(takesS)}${cut}\n`
  );
}

/** A duration for people: seconds, minutes, hours or days. */
function duration(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}

/** One pass over the files; stopped by `signal`, it prints what it did so far and rejects. */
async function replayPass(
  files: string[],
  speed: number,
  values: Record<string, unknown>,
  io: CommandIo,
  signal: AbortSignal | undefined,
): Promise<void> {
  const out = {
    ingested: 0,
    duplicates: 0,
    skipped: [] as { path: string; reason: string }[],
    rejected: [] as { path: string; reason: string }[],
  };
  const eventIds = new Map<string, string>();
  let started = false;
  const pass = io.withDatabase(values, async (session) => {
    const { config, db, bus, metrics, log } = session;
    started = true;
    noteUnserved('replay', session, io);
    const limit = config.maxTelegramBytes;
    const items = files.map((path) => {
      if (statSync(resolve(io.cwd, path)).size > limit) return { path, skipped: tooLargeReason(limit) };
      return replayItem(path, readFileSync(resolve(io.cwd, path)));
    });
    for (const item of items)
      if ('skipped' in item) out.skipped.push({ path: item.path, reason: item.skipped });
    const ordered = replayOrder(items);
    const offsets = replaySchedule(ordered, speed, values['real-time'] === true);
    io.stderr(planLine(ordered, offsets, speed, values['real-time'] === true));
    const passStart = Date.now();
    let sent = 0;
    await ingestTimed<Replayable>(
      { db, bus: await bus(), config, metrics, log, source: 'replay' },
      ordered.map((item, i) => ({ offsetMs: offsets[i]!, item })),
      speed,
      (item, now) => {
        // Said as it goes out; only what did not go as planned gets a second line.
        const at = ((now - passStart) / 1000).toFixed(1);
        io.stderr(`namazu replay: ${++sent}/${ordered.length} +${at} s ${item.path}\n`);
        const raw = readAgain(resolve(io.cwd, item.path));
        if (raw === null) return null;
        return {
          raw: restamp(item, raw, now, eventIds, values['as-test'] === true),
          fileName: basename(item.path),
        };
      },
      (item, outcome) => {
        if (!outcome?.ok) {
          const reason = outcome?.reason ?? 'could not be read again';
          out.rejected.push({ path: item.path, reason });
          io.stderr(`namazu replay: ${item.path} rejected: ${reason}\n`);
        } else if (outcome.stored.duplicate) {
          out.duplicates++;
          io.stderr(`namazu replay: ${item.path} was stored before, as ${outcome.stored.id}\n`);
        } else out.ingested++;
      },
      signal,
    );
  });
  try {
    await pass;
  } finally {
    if (started) printJson(io, out);
  }
}
