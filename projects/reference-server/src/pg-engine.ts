import pg from 'pg';

import { type DatabaseTimeouts, DatabaseUnavailableError } from './database-unavailable-error.js';
import { type SqlEngine, type SqlExecutor, sqlState } from './sql-engine.js';

/** What the client side adds to the statement timeout before it gives up on a silent server. */
const CLIENT_TIMEOUT_MARGIN_MS = 1_000;

/**
 * A real PostgreSQL through a `pg` connection pool: the engine for several server instances behind
 * a load balancer, which then share the refresh tokens and the users. `schema`, when given, is put
 * first on every connection's `search_path` (the tests run each suite in a fresh schema).
 *
 * With `timeouts`, a request never waits on the database for long: a connection must open (or come
 * free) within `connectTimeoutMs`; the server cancels a statement after `statementTimeoutMs` (a
 * lock held elsewhere, a slow plan); and should the server itself freeze, the client gives up a
 * second later and drops that connection. Each of these throws {@link DatabaseUnavailableError}.
 * Without `timeouts` (migrations, which may rightly take long), nothing is bounded.
 *
 * @example
 * const engine = createPgEngine(process.env.DATABASE_URL, { timeouts: { connectTimeoutMs: 5000, statementTimeoutMs: 5000 } });
 */
export function createPgEngine(
  connectionString: string,
  options: { readonly schema?: string; readonly timeouts?: DatabaseTimeouts } = {},
): SqlEngine {
  const { schema, timeouts } = options;
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    ...(timeouts
      ? {
          connectionTimeoutMillis: timeouts.connectTimeoutMs,
          statement_timeout: timeouts.statementTimeoutMs,
          query_timeout: timeouts.statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
          // A transaction left open (its request gone) must not hold its locks for ever.
          idle_in_transaction_session_timeout: Math.max(60_000, timeouts.statementTimeoutMs * 2),
        }
      : {}),
  });
  // An idle connection that breaks (database restarted) must not crash the process; the next query
  // gets a fresh one.
  pool.on('error', () => undefined);
  return {
    description: 'PostgreSQL',
    // pool.query hands a connection back with its error, which drops a connection that timed out.
    query: (sql, params = []) => translate(async () => (await pool.query(sql, [...params])).rows),
    exec: (sql) =>
      translate(async () => {
        await pool.query(sql);
      }),
    transaction: async (work) => {
      const client = await translate(() => pool.connect());
      let broken: unknown = undefined;
      try {
        await translate(() => client.query('BEGIN'));
        const result = await work(executor(client));
        await translate(() => client.query('COMMIT'));
        return result;
      } catch (error) {
        // After a client-side timeout the connection still waits for its answer: a ROLLBACK would
        // queue behind it. Dropping the connection rolls back just as well.
        const cause = error instanceof DatabaseUnavailableError ? error.cause : error;
        if (isBroken(cause)) broken = cause;
        else await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError));
        throw error;
      } finally {
        client.release(broken === undefined ? undefined : toError(broken));
      }
    },
    close: () => pool.end(),
  };
}

function executor(client: pg.PoolClient): SqlExecutor {
  return {
    query: (sql, params = []) => translate(async () => (await client.query(sql, [...params])).rows),
    exec: (sql) =>
      translate(async () => {
        await client.query(sql);
      }),
  };
}

/** Runs `operation`, turning the errors that mean "the database is not answering" into {@link DatabaseUnavailableError}. */
async function translate<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isUnavailable(error))
      throw new DatabaseUnavailableError('the database did not answer in time', { cause: error });
    throw error;
  }
}

/** SQLSTATEs of a database that is busy, going away or unreachable, rather than of a wrong statement. */
const UNAVAILABLE_STATES = new Set(['57014', '57P01', '57P02', '57P03', '53300', '55P03', '25P03']);
/** Socket errors on the way to the database. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
/** `pg` and `pg-pool` report their own timeouts and lost connections by message only. */
const CLIENT_MESSAGES = /^(Query read timeout|timeout exceeded when trying to connect|Connection terminated)/;

function isUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  if (state !== null) return UNAVAILABLE_STATES.has(state) || state.startsWith('08');
  return isBroken(error);
}

/** Errors after which a connection cannot be trusted with another statement. */
function isBroken(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && NETWORK_CODES.has(code)) || CLIENT_MESSAGES.test(error.message);
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
