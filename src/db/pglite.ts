import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Db, Queryable, SqlParam } from './types.ts';

/** What the database thread (pglite-worker.js) answers a request with: rows, a transaction, or an error. */
interface Answer {
  id: number;
  rows?: Record<string, unknown>[];
  tx?: number;
  error?: ErrorData;
}
/** What it says once, when it has opened the database or failed to. */
type Opened = { opened: true } | { opened: false; error: ErrorData };

/** An error from the database thread: its message and fields (`code`, `detail`, `constraint`, …). */
type ErrorData = { message: string } & Record<string, string | number>;

type Request =
  | { kind: 'query'; sql: string; params: readonly SqlParam[]; tx?: number }
  | { kind: 'exec'; sql: string; tx?: number }
  | { kind: 'begin' }
  | { kind: 'end'; tx: number; commit: boolean }
  | { kind: 'close' };

const asError = ({ message, ...fields }: ErrorData) => Object.assign(new Error(message), fields);

/** Byte arrays come back from the other thread as Uint8Array: Buffers again, as the contract says. */
function withBuffers(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const row of rows)
    for (const name in row) {
      const value = row[name];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value))
        row[name] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  return rows;
}

/**
 * Whether a byte array is a view into a larger buffer of this thread (zlib's output chunk, Node's
 * 8 KiB pool). Shared memory (an upload's, http/shared-body.ts) is posted without a copy.
 */
const isPartialView = (param: SqlParam): param is Uint8Array =>
  param instanceof Uint8Array &&
  param.buffer instanceof ArrayBuffer &&
  param.byteLength !== param.buffer.byteLength;

/**
 * Parameters as posted to the database thread. Posting copies a byte array's whole buffer, not only
 * its view: an early warning's two compressed bodies of about 1 KB each went over as the two 16 KB
 * chunks zlib wrote them into. Such a view is posted as a copy of its own bytes.
 */
const postable = (params: readonly SqlParam[]): readonly SqlParam[] =>
  params.some(isPartialView) ? params.map((p) => (isPartialView(p) ? new Uint8Array(p) : p)) : params;

/**
 * The engine's WebAssembly, compiled once per process and given to each database thread. PGlite
 * keeps a compiled engine per thread, and each database here has a thread of its own: a process
 * that opens several (a backup and its check, the test suite's hundreds) would compile it at each
 * open, about a fifth of an open's CPU. Shared, a compiled module's code is shared too.
 */
let compiledEngine: Promise<WebAssembly.Module> | undefined;

/** The global WebAssembly (the project's TypeScript libraries declare its types, not the global). */
const wasm = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }
).WebAssembly;

function engineModule(): Promise<WebAssembly.Module> {
  // The right side runs only while nothing is compiled or compiling.
  compiledEngine ??= readFile(
    new URL('pglite.wasm', pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite'))),
  )
    .then((bytes) => wasm.compile(bytes))
    .catch((err: unknown) => {
      compiledEngine = undefined;
      throw err;
    });
  return compiledEngine;
}

/**
 * Embedded PostgreSQL (WASM) in a data directory, run in a thread of its own (pglite-worker.js):
 * every statement runs there, and this thread only sends it and receives its rows. One connection:
 * PGlite serialises statements, and holds every other one back while a transaction is open.
 */
export async function openPglite(dataDir: string): Promise<Db> {
  // Open, it keeps the process alive, as a pooled PostgreSQL connection does, until closed.
  const worker = new Worker(new URL('./pglite-worker.js', import.meta.url), {
    workerData: { dataDir, engine: await engineModule() },
  });
  const pending = new Map<number, { resolve(answer: Answer): void; reject(err: Error): void }>();
  let lastId = 0;
  let failure: Error | null = null;

  const opened = new Promise<void>((resolve, reject) => {
    worker.on('message', (reply: Answer | Opened) => {
      if ('opened' in reply) return reply.opened ? resolve() : reject(asError(reply.error));
      const call = pending.get(reply.id);
      if (!call) return;
      pending.delete(reply.id);
      call.resolve(reply);
    });
    const fail = (err: Error) => {
      failure = err;
      reject(err);
      for (const call of pending.values()) call.reject(err);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the embedded database's thread exited with code ${code}`)));
  });
  await opened;

  async function send(request: Request): Promise<Answer> {
    if (failure) throw failure;
    const id = ++lastId;
    // Posted first: a value that cannot be sent throws here, before anything waits for its answer.
    worker.postMessage({ id, ...request });
    const answered = await new Promise<Answer>((resolve, reject) => pending.set(id, { resolve, reject }));
    if (answered.error) throw asError(answered.error);
    return answered;
  }

  const queryable = (tx?: number): Queryable => ({
    async query<T>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
      return withBuffers(
        (await send({ kind: 'query', sql, params: postable(params), tx })).rows ?? [],
      ) as T[];
    },
    async exec(sql: string): Promise<void> {
      await send({ kind: 'exec', sql, tx });
    },
  });

  const { query, exec } = queryable();
  return {
    engine: 'pglite',
    query,
    exec,
    async tx(fn) {
      const { tx } = await send({ kind: 'begin' });
      let result;
      try {
        result = await fn(queryable(tx));
      } catch (err) {
        await send({ kind: 'end', tx: tx!, commit: false });
        throw err;
      }
      await send({ kind: 'end', tx: tx!, commit: true });
      return result;
    },
    async close() {
      if (!failure) await send({ kind: 'close' });
      await worker.terminate();
    },
  };
}
