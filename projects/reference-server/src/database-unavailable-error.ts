/**
 * The database did not answer in time (a statement ran past its timeout, no connection could be
 * had, the connection broke). The error handler answers it with 503 `ServiceUnavailable` and
 * `Retry-After`: the request may well succeed a moment later, and nothing about it was the
 * client's fault. The engines throw it; the underlying error is kept as `cause` for the log.
 *
 * @example
 * throw new DatabaseUnavailableError('no answer within 5000 ms', { cause: error });
 */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** How long the database may take to answer, in milliseconds; see the engines. */
export interface DatabaseTimeouts {
  /** PostgreSQL: opening a connection, or waiting for a free one from the pool. */
  readonly connectTimeoutMs: number;
  /** One statement (PostgreSQL); waiting for the database (PGlite). */
  readonly statementTimeoutMs: number;
}
