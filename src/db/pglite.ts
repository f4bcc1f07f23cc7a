import { PGlite, types } from '@electric-sql/pglite';
import type { Db, Queryable, SqlParam } from './types.ts';

/** bytea comes back as Uint8Array from PGlite; the adapter contract says Buffer. */
function normaliseRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const key in row) {
    const v = row[key];
    if (v instanceof Uint8Array && !Buffer.isBuffer(v))
      row[key] = Buffer.from(v.buffer, v.byteOffset, v.length);
  }
  return row;
}

const parsers = {
  // int8 as a JavaScript number (serials and ids stay far below 2^53).
  [types.INT8]: (v: string) => Number(v),
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
      return (res.rows as Record<string, unknown>[]).map(normaliseRow) as T[];
    },
  };
}

/** Embedded PostgreSQL (WASM) in a data directory. One connection; PGlite serialises queries. */
export async function openPglite(dataDir: string): Promise<Db> {
  const pg = await PGlite.create(dataDir, { parsers });
  const q = wrap(pg);
  return {
    engine: 'pglite',
    query: q.query,
    exec: q.exec,
    tx: (fn) => pg.transaction((t) => fn(wrap(t))),
    close: () => pg.close(),
  };
}
