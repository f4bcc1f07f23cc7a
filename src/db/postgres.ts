import { createHash } from 'node:crypto';
import pg from 'pg';
import { numberListLiteral } from './array-literal.js';
import { MAX_NAMED_STATEMENTS } from './named-statements.js';
import type { Db, PoolWaitObserver, Queryable, SqlParam } from './types.ts';

// int8 as a JavaScript number, as on PGlite (serials and ids stay far below 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

// Statements with parameters run as named prepared statements (named-statements.js): planning is
// most of a keyset page's cost.
const statementNames = new Map<string, string>();

function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = 's' + createHash('sha1').update(sql).digest('hex').slice(0, 20);
    statementNames.set(sql, name);
  }
  return name;
}

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async exec(sql: string): Promise<void> {
      // Without parameters pg uses the simple query protocol, which runs several statements.
      await client.query(sql);
    },
    async query<T>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
      const values = params.map((p) => numberListLiteral(p) ?? p);
      const name = values.length > 0 ? statementName(sql) : undefined;
      const res = await client.query(name ? { name, text: sql, values } : { text: sql, values });
      return res.rows as T[];
    },
  };
}

/** A PostgreSQL server through a connection pool. */
export async function openPostgres(
  url: string,
  poolSize: number,
  onPoolWait?: PoolWaitObserver,
): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Fail fast with a clear error when the server is unreachable.
  const probe = await pool.connect();
  probe.release();

  /**
   * A pooled connection, timed when the pool is exhausted. While it is checked out, a connection
   * that dies fails the statement under way; the listener keeps its 'error' event from being
   * uncaught (the pool listens only to idle connections).
   */
  async function acquire(): Promise<pg.PoolClient & { done(err?: Error): void }> {
    const exhausted = pool.waitingCount > 0 || (pool.idleCount === 0 && pool.totalCount >= poolSize);
    const started = performance.now();
    const client = await pool.connect();
    if (exhausted) onPoolWait?.((performance.now() - started) / 1000);
    let failed: Error | undefined;
    const onError = (err: Error) => (failed = err);
    client.on('error', onError);
    return Object.assign(client, {
      done(err?: Error) {
        client.removeListener('error', onError);
        client.release(err ?? failed);
      },
    });
  }

  /** One statement on a pooled connection, as pool.query runs it (a failed client is discarded). */
  async function onConnection<T>(run: (q: Queryable) => Promise<T>): Promise<T> {
    const client = await acquire();
    try {
      const out = await run(wrap(client));
      client.done();
      return out;
    } catch (err) {
      client.done(err as Error);
      throw err;
    }
  }

  return {
    engine: 'postgres',
    query: (sql, params) => onConnection((q) => q.query(sql, params)),
    exec: (sql) => onConnection((q) => q.exec(sql)),
    poolWaiting: () => pool.waitingCount,
    async tx(fn) {
      const client = await acquire();
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.done();
      }
    },
    close: () => pool.end(),
  };
}
