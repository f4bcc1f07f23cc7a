// @ts-check
// The embedded database's own thread (pglite.ts): PGlite runs here, so that its statements — a few
// milliseconds each, a VACUUM up to seconds — never hold the event loop (docs/architecture.md,
// "Database"). Plain JavaScript: a worker of the TypeScript sources would first start a
// TypeScript loader, about half a second for every database opened.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, parse, protocol, types } from '@electric-sql/pglite';
import { numberListLiteral } from './array-literal.js';
import { MAX_NAMED_STATEMENTS } from './named-statements.js';

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

// Statements with parameters run as named prepared statements, as on PostgreSQL (named-statements.js):
// PGlite's own query() parses, analyses and plans the text again on every call, which for the ingest
// statement is two thirds of its time here (1.2 ms → 0.5 ms).
/** @type {Map<string, { name: string, paramTypes: number[] }>} */
const namedStatements = new Map();
let lastStatementNumber = 0;
const { serialize } = protocol;

/** Bind messages up to this size are written into one buffer kept for the next; larger ones get their own. */
const KEPT_BIND_BYTES = 1024 * 1024;
let bindBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * The Bind message of a named statement (text values in format 0, bytes in format 1, rows asked for
 * as text), written once into a buffer reused from statement to statement. PGlite's serializer
 * copies each value into fresh ArrayBuffers five times over (a slice of it, its parameter writer's
 * growth and flush, the message's growth and flush): for a large telegram's body, megabytes of
 * short-lived memory outside the heap per statement, for which V8 ran a full collection in this
 * thread every ten or so of them — pauses of 2–25 ms that held every statement behind, early
 * warnings included (docs/telegrams.md, "Size"). The message is consumed before its statement
 * returns (PGlite copies it into the engine's memory), and statements run one at a time.
 */
function bindMessage(/** @type {string} */ statement, /** @type {(string | Uint8Array | null)[]} */ values) {
  const valueBytes = values.map((v) =>
    v === null ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.byteLength,
  );
  const n = values.length;
  const data = valueBytes.reduce((sum, bytes) => sum + bytes, 0);
  // Code and length; portal and statement names; format codes; values; the result format.
  const size = 5 + (1 + Buffer.byteLength(statement) + 1) + (2 + 2 * n) + (2 + 4 * n + data) + 4;
  if (size > bindBuffer.length && size <= KEPT_BIND_BYTES)
    bindBuffer = Buffer.allocUnsafe(Math.min(KEPT_BIND_BYTES, 2 * size));
  const out = size <= bindBuffer.length ? bindBuffer : Buffer.allocUnsafe(size);
  let at = out.writeUInt8(0x42, 0); // 'B'
  at = out.writeInt32BE(size - 1, at);
  at = out.writeUInt8(0, at); // the unnamed portal
  at += out.write(statement, at, 'utf8');
  at = out.writeUInt8(0, at);
  at = out.writeUInt16BE(n, at);
  for (const v of values) at = out.writeUInt16BE(v instanceof Uint8Array ? 1 : 0, at);
  at = out.writeUInt16BE(n, at);
  values.forEach((v, i) => {
    at = out.writeInt32BE(v === null ? -1 : /** @type {number} */ (valueBytes[i]), at);
    if (typeof v === 'string') at += out.write(v, at, 'utf8');
    else if (v !== null) {
      out.set(v, at);
      at += v.byteLength;
    }
  });
  at = out.writeUInt16BE(1, at); // one result format for every column:
  out.writeUInt16BE(0, at); // text
  return out.subarray(0, size);
}

/**
 * One statement through the extended protocol as PGlite's query() sends it, but parsed once per text
 * under a name: Bind, Describe, Execute, Sync. The caller holds PGlite's query lock (and, outside a
 * transaction, its transaction lock).
 */
async function runNamed(/** @type {string} */ sql, /** @type {unknown[]} */ params) {
  const run = (/** @type {Uint8Array} */ message) => pg.execProtocolStream(message, { syncToFs: false });
  const messages = [];
  try {
    let statement = namedStatements.get(sql);
    if (!statement) {
      // A name never used before: a text parsed but not described (an error) is not in the map,
      // and its next attempt must not collide with what that one left in the session.
      const name = `s${++lastStatementNumber}`;
      await run(serialize.parse({ name, text: sql }));
      const paramTypes = parse.parseDescribeStatementResults(
        await run(serialize.describe({ type: 'S', name })),
      );
      statement = { name, paramTypes };
      namedStatements.set(sql, statement);
    }
    const { name, paramTypes } = statement;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      // Bytes in the binary format, as pg sends a Buffer: as text they would be encoded here and
      // decoded again in the engine, at twice their size.
      if (paramTypes[i] === types.BYTEA && value instanceof Uint8Array) return value;
      // A list of numbers by one join, as on PostgreSQL (array-literal.js says why); for a json
      // parameter PGlite's serializer writes it as JSON.
      const literal =
        paramTypes[i] === types.JSON || paramTypes[i] === types.JSONB ? undefined : numberListLiteral(value);
      if (literal !== undefined) return literal;
      const serializer = pg.serializers[/** @type {number} */ (paramTypes[i])];
      return serializer ? serializer(value) : String(value);
    });
    messages.push(...(await run(bindMessage(name, values))));
    messages.push(...(await run(serialize.describe({ type: 'P' }))));
    messages.push(...(await run(serialize.execute({}))));
  } finally {
    messages.push(...(await run(serialize.sync())));
  }
  return parse.parseResults(messages, pg.parsers)[0]?.rows ?? [];
}

/** Whether a statement runs named: it has parameters, and its text is named or may still be. */
const runsNamed = (/** @type {Request & { kind: 'query' }} */ request) =>
  request.params.length > 0 &&
  (namedStatements.has(request.sql) || namedStatements.size < MAX_NAMED_STATEMENTS);

/** Runs a statement on `db` (PGlite itself, or an open transaction), and answers with its rows or its error. */
async function run(/** @type {Runner} */ db, /** @type {Request & { kind: 'query' | 'exec' }} */ request) {
  try {
    if (request.kind === 'exec') {
      await db.exec(request.sql);
      port.postMessage({ id: request.id, rows: [] });
    } else if (runsNamed(request)) {
      const named = () => pg.runExclusive(() => runNamed(request.sql, request.params));
      const rows = await (db === pg ? pg._runExclusiveTransaction(named) : named());
      port.postMessage({ id: request.id, rows });
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

const pg = await PGlite.create(workerData.dataDir, {
  parsers,
  serializers,
  // Compiled once by the process (pglite.ts).
  pgliteWasmModule: workerData.engine,
}).catch((err) => {
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
