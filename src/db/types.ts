/**
 * The one database interface every module uses. Implementations (PGlite, PostgreSQL) normalise
 * results identically: int8 → number, numeric → string, timestamptz → Date, jsonb → parsed value,
 * bytea → Buffer.
 */
export type SqlParam = string | number | boolean | null | Date | Buffer | Uint8Array | object | bigint;

/** A statement, or a part of one, with its parameters. */
export interface SqlStatement {
  sql: string;
  params: SqlParam[];
}

/**
 * A statement that runs inside another, after the row it depends on: given the name of that row's
 * source (a common table expression) and the number of its first parameter.
 */
export type StatementAfter = (from: string, first: number) => SqlStatement;

export interface Queryable {
  /** Runs one statement with $1… parameters and returns its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /** Runs fn in one transaction: COMMIT when it resolves, ROLLBACK when it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Requests waiting for a pooled connection now (PostgreSQL; the embedded engine has no pool). */
  poolWaiting?(): number;
  close(): Promise<void>;
}

/** Called with the seconds a request waited for a pooled connection, for requests that waited. */
export type PoolWaitObserver = (seconds: number) => void;
