import pg from 'pg';
import type { Db, Queryable, SqlParam } from './types.ts';

// int8 as a JavaScript number, as on PGlite (serials and ids stay far below 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async exec(sql: string): Promise<void> {
      // Without parameters pg uses the simple query protocol, which runs several statements.
      await client.query(sql);
    },
    async query<T>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
      const res = await client.query(sql, params as unknown[]);
      return res.rows as T[];
    },
  };
}

/** A PostgreSQL server through a connection pool. */
export async function openPostgres(url: string, poolSize: number): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Fail fast with a clear error when the server is unreachable.
  const probe = await pool.connect();
  probe.release();
  const q = wrap(pool);
  return {
    engine: 'postgres',
    query: q.query,
    exec: q.exec,
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
