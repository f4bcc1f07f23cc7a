import { PGlite, types } from '@electric-sql/pglite';
import type { Db, Queryable, SqlParam } from './types.ts';

const parsers = {
  // int8 as a JavaScript number (serials and ids stay far below 2^53).
  [types.INT8]: (v: string) => Number(v),
  // bytea as the Buffer the adapter contract says, decoded natively: PGlite's own parser and
  // serializer go byte by byte in JavaScript, about 40 ms for a 100 KB body on the event loop
  // (docs/telegrams.md, "Size").
  [types.BYTEA]: (v: string) => Buffer.from(v.slice(2), 'hex'),
};

const serializers = {
  [types.BYTEA]: (v: Uint8Array) => `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`,
};

interface PgliteLike {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  exec(sql: string): Promise<unknown>;
}

function wrap(pg: PgliteLike): Queryable {
  return {
    async exec(sql: string): Promise<void> {
      await pg.exec(sql);
    },
    async query<T>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
      const res = await pg.query(sql, params as unknown[]);
      return res.rows as T[];
    },
  };
}

/** Embedded PostgreSQL (WASM) in a data directory. One connection; PGlite serialises queries. */
export async function openPglite(dataDir: string): Promise<Db> {
  const pg = await PGlite.create(dataDir, { parsers, serializers });
  const q = wrap(pg);
  return {
    engine: 'pglite',
    query: q.query,
    exec: q.exec,
    tx: (fn) => pg.transaction((t) => fn(wrap(t))),
    close: () => pg.close(),
  };
}
