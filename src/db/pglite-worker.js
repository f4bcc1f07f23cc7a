// @ts-check
// The embedded database's own thread (pglite.ts): PGlite runs here, so that its statements — a few
// milliseconds each, a VACUUM up to seconds — never hold the event loop (docs/architecture.md,
// "Database"). Plain JavaScript: a worker of the TypeScript sources would first start a
// TypeScript loader, about half a second for every database opened.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';

/** @typedef {{ query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>; exec(sql: string): Promise<unknown> }} Runner */
/** @typedef {{ id: number, kind: 'query', sql: string, params: unknown[], tx?: number } | { id: number, kind: 'exec', sql: string, tx?: number } | { id: number, kind: 'begin' } | { id: number, kind: 'end', tx: number, commit: boolean } | { id: number, kind: 'close' }} Request */

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

const parsers = {
  // int8 as a JavaScript number (serials and ids stay far below 2^53).
  [types.INT8]: (/** @type {string} */ v) => Number(v),
  // bytea decoded natively: PGlite's own parser and serializer go byte by byte in JavaScript, about
  // 40 ms for a 100 KB body (docs/telegrams.md, "Size").
  [types.BYTEA]: (/** @type {string} */ v) => Buffer.from(v.slice(2), 'hex'),
};
const serializers = {
  [types.BYTEA]: (/** @type {Uint8Array} */ v) =>
    `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`,
};

/** An error as data that survives the trip to the other thread: its message and its fields. */
function asData(/** @type {unknown} */ err) {
  if (!(err instanceof Error)) return { message: String(err) };
  /** @type {Record<string, unknown>} */
  const fields = { message: err.message };
  for (const [name, value] of Object.entries(err))
    if (typeof value === 'string' || typeof value === 'number') fields[name] = value;
  return fields;
}

/** Runs a statement, and answers with its rows or its error. */
async function run(/** @type {Runner} */ db, /** @type {Request & { kind: 'query' | 'exec' }} */ request) {
  try {
    if (request.kind === 'exec') {
      await db.exec(request.sql);
      port.postMessage({ id: request.id, rows: [] });
    } else {
      port.postMessage({ id: request.id, rows: (await db.query(request.sql, request.params)).rows });
    }
  } catch (err) {
    port.postMessage({ id: request.id, error: asData(err) });
  }
}

/** Thrown out of a transaction's callback for PGlite to roll it back. */
const ROLLBACK = Symbol('rollback');

/**
 * Open transactions, by the id of the request that began them: the statements sent for each,
 * which its callback runs in order, while PGlite holds every other statement back.
 * @type {Map<number, { waiting: Request[], wake: (() => void) | null }>}
 */
const transactions = new Map();

function begin(/** @type {number} */ id) {
  const tx = { waiting: /** @type {Request[]} */ ([]), wake: /** @type {(() => void) | null} */ (null) };
  transactions.set(id, tx);
  /** @type {number | undefined} */
  let endId;
  pg.transaction(async (t) => {
    port.postMessage({ id, tx: id });
    for (;;) {
      while (tx.waiting.length === 0) await new Promise((resolve) => (tx.wake = () => resolve(undefined)));
      const request = /** @type {Request} */ (tx.waiting.shift());
      if (request.kind === 'end') {
        endId = request.id;
        if (!request.commit) throw ROLLBACK;
        return;
      }
      if (request.kind === 'query' || request.kind === 'exec') await run(t, request);
    }
  })
    .then(
      () => port.postMessage({ id: endId, rows: [] }),
      (err) =>
        port.postMessage(
          err === ROLLBACK ? { id: endId, rows: [] } : { id: endId ?? id, error: asData(err) },
        ),
    )
    .finally(() => transactions.delete(id));
}

const pg = await PGlite.create(workerData.dataDir, { parsers, serializers }).catch((err) => {
  port.postMessage({ opened: false, error: asData(err) });
  throw err;
});
// A new WAL segment (16 MB) is created without writing it full of zeroes first: zero-filling it in
// this thread held the one connection for 15–95 ms every 16 MB of writes, early warnings included
// (docs/architecture.md, "Database").
await pg.exec('SET wal_init_zero = off');
port.postMessage({ opened: true });

port.on('message', (/** @type {Request} */ request) => {
  if (request.kind === 'begin') return begin(request.id);
  if (request.kind === 'close') {
    void pg.close().then(
      () => port.postMessage({ id: request.id, rows: [] }),
      (err) => port.postMessage({ id: request.id, error: asData(err) }),
    );
    return;
  }
  if (request.tx === undefined)
    return void run(pg, /** @type {Request & { kind: 'query' | 'exec' }} */ (request));
  const tx = transactions.get(request.tx);
  if (!tx) return port.postMessage({ id: request.id, error: { message: 'the transaction has ended' } });
  tx.waiting.push(request);
  tx.wake?.();
  tx.wake = null;
});
