/** Runs SQL with positional parameters (`$1`, `$2`, ...) and returns the rows. */
export interface SqlExecutor {
  query<Row extends object>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * The one seam between the repository and a database engine: PGlite (embedded) and PostgreSQL
 * (`pg`) both implement it, so both run the same migrations and the same SQL.
 */
export interface SqlEngine extends SqlExecutor {
  /** What the engine is, for the start-up log: `PGlite (in memory)`, `PostgreSQL`. */
  readonly description: string;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/** The SQLSTATE of a database error (`23505` for a unique violation), or `null`. */
export function sqlState(error: unknown): string | null {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}
