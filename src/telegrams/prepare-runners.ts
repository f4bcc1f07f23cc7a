import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { workerLoadCode } from '../worker-code.ts';
import type { Converted, IngestHints, Ready } from './prepare.ts';

/** A telegram to prepare, as posted to a runner. */
export interface PrepareRequest {
  seq: number;
  raw: Uint8Array;
  hints: IngestHints;
  /** Whether the runner also compresses and identifies it, or leaves that to the caller. */
  compress: boolean;
  /**
   * Set when the telegram is to be stored without its conversion, for this reason: the runner reads
   * its Control and Head only, and compresses and identifies it (prepare.ts `prepareUnconverted`).
   */
  unconvertedBecause?: string;
}

/** A prepared telegram, or one read and converted only, when compressing was left to the caller. */
export type Outcome = { ready: Ready } | { converted: Converted };

/** What a runner posts: that it has loaded its code, or the outcome of one request. */
export type PrepareReply = { started: true } | ({ seq: number } & Outcome) | { seq: number; error: string };

/**
 * Where prepare-pool.ts runs its prepare code (prepare-worker.ts): a worker thread of this process,
 * or a child process of its own.
 */
export type RunnerKind = 'thread' | 'process';

/** One running copy of the prepare code, as the pool drives it. */
export interface PrepareRunner {
  post(request: PrepareRequest): void;
  onReply(listener: (reply: PrepareReply) => void): void;
  /** Called once when the runner fails or exits; the pool drops it. */
  onEnd(listener: (err: Error) => void): void;
  /** Whether it keeps this process alive (only while it has work). */
  ref(): void;
  unref(): void;
  stop(): Promise<void>;
}

/**
 * How many nice steps a runner runs below the thread that starts it. On Linux a nice value is a
 * thread's own: when the cores are busy, the event loop (an early warning being stored and sent)
 * runs before a large telegram is parsed, which takes what is left over (docs/telegrams.md,
 * "Size"). Set before the runner loads its code, so that its start-up yields too.
 */
const NICER_BY = 10;

/**
 * A thread's young generation, in MB (V8's default is 16 on 64-bit). Parsing a 4 MB telegram
 * allocates a few hundred MB of short-lived objects: with room for them to die young, the runner
 * runs a fraction of the collections (docs/telegrams.md, "Size"). A process's semi-space is a third
 * of it, as V8 counts a young generation of three semi-spaces.
 */
const YOUNG_GENERATION_MB = 256;

/**
 * The code a runner evaluates first: its nice value, then the prepare code (worker-code.ts). A
 * process renices every thread it has (V8's collector helpers among them, started before any of
 * this runs); a thread only itself. Where the nice value cannot be set, the runner runs at ours.
 */
function startCode(kind: RunnerKind): string {
  const threads =
    kind === 'process' ? `require('node:fs').readdirSync('/proc/self/task').map(Number)` : '[0]';
  const nice =
    `try { const os = require('node:os'); const to = Math.min(19, os.getPriority() + ${NICER_BY});` +
    ` for (const id of ${threads}) os.setPriority(id, to); } catch {}`;
  return `${nice}\n${workerLoadCode(import.meta.url, 'prepare-worker')};`;
}

export function startRunner(kind: RunnerKind): PrepareRunner {
  return kind === 'thread' ? startThread() : startProcess();
}

function startThread(): PrepareRunner {
  const worker = new Worker(startCode('thread'), {
    eval: true,
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  return {
    post: (request) => worker.postMessage(request),
    onReply: (listener) => worker.on('message', listener),
    onEnd: (listener) => {
      worker.on('error', listener);
      worker.on('exit', (code) => listener(new Error(`prepare worker exited with code ${code}`)));
    },
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    stop: async () => void (await worker.terminate()),
  };
}

/** A request as a process's channel carries it: the telegram's bytes go through its standard input. */
export type ProcessRequest = Omit<PrepareRequest, 'raw'> & { rawBytes: number };

/**
 * A child process: its own heap and its own collector threads, so that the megabytes a large
 * telegram's parse allocates are collected on threads that run below the event loop and the
 * database thread instead of beside them (docs/telegrams.md, "Size"). Requests and replies go
 * through its IPC channel in V8's serialization; a telegram's bytes through its standard input,
 * written as the pipe takes them: serialized into the channel, 4 MB took 3–7 ms of the event loop
 * in one piece. It exits when this process does (its channel closes).
 */
function startProcess(): PrepareRunner {
  const child = spawn(
    process.execPath,
    [`--max-semi-space-size=${Math.floor(YOUNG_GENERATION_MB / 3)}`, '-e', startCode('process')],
    { stdio: ['pipe', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' },
  );
  const input = child.stdin as Socket;
  let ended = false;
  const endListeners: ((err: Error) => void)[] = [];
  const end = (err: Error) => {
    if (ended) return;
    ended = true;
    for (const listener of endListeners) listener(err);
  };
  child.on('error', end);
  input.on('error', (err) => end(new Error(`prepare process unreachable: ${err.message}`)));
  child.on('exit', (code, signal) =>
    end(new Error(`prepare process exited with ${signal ?? `code ${code}`}`)),
  );
  // The channel and the input are what keep this process alive while the child has work.
  const channel = () => child.channel as unknown as { ref(): void; unref(): void } | undefined;
  return {
    post: ({ raw, ...request }) => {
      input.write(raw);
      const sent: ProcessRequest = { ...request, rawBytes: raw.byteLength };
      child.send(sent, (err) => err && end(err));
    },
    onReply: (listener) => child.on('message', listener),
    onEnd: (listener) => endListeners.push(listener),
    ref: () => {
      child.ref();
      channel()?.ref();
      input.ref();
    },
    unref: () => {
      child.unref();
      channel()?.unref();
      input.unref();
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.ref(); // an idle child is unref'd: its exit would not be waited for
      child.kill();
      await exited;
    },
  };
}
