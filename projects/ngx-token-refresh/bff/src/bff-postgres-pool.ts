/**
 * What `createBffPostgresStore` needs of a connection pool: the shape of a `pg.Pool` (node-postgres),
 * which fits as it is. The entry point does not depend on `pg`; any object of this shape will do.
 *
 * @usageNotes
 * ```ts
 * import pg from 'pg';
 * const pool: BffPostgresPool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * ```
 */
export interface BffPostgresPool {
  /** Runs one statement on any connection of the pool (`$1`, `$2`... in `text` take `values`). */
  query(text: string, values?: unknown[]): Promise<{ readonly rows: readonly unknown[] }>;
  /** Takes a connection of its own, for a transaction; the store gives it back with `release`. */
  connect(): Promise<BffPostgresClient>;
}

/** One connection taken from a {@link BffPostgresPool}: the shape of a `pg.PoolClient`. */
export interface BffPostgresClient {
  /** Runs one statement on this connection. */
  query(text: string, values?: unknown[]): Promise<{ readonly rows: readonly unknown[] }>;
  /** Gives the connection back; with an error (or `true`), the pool closes it instead of reusing it. */
  release(error?: Error | boolean): void;
  /**
   * `pg`'s connections are event emitters that throw when they lose their server while no statement
   * runs, unless someone listens for `'error'`: the store listens while it holds one.
   */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  /** Stops listening (see `on`). */
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
}
