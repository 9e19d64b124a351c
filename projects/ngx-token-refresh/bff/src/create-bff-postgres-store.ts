import { assertBffSession } from './assert-bff-session';
import { assertSessionChange } from './assert-session-change';
import { assertTime } from './assert-time';
import { BffError } from './bff-error';
import type { BffPostgresPool } from './bff-postgres-pool';
import type { BffSession } from './bff-session';
import type { BffSessionStore } from './bff-session-store';
import { sessionEndsAt } from './session-ends-at';
import { assertSessionKey } from './session-key';

/**
 * Options of {@link createBffPostgresStore}.
 *
 * @usageNotes
 * ```ts
 * createBffPostgresStore({ pool, lockTimeout: 20_000 });
 * ```
 */
export interface BffPostgresStoreOptions {
  /** The connection pool: a `pg.Pool`, or any object of its shape. Its `search_path` picks the schema. */
  readonly pool: BffPostgresPool;
  /**
   * How long a `change` waits for another change of the same session (on any instance) before it fails
   * with `BffError` `LockTimeout`, in milliseconds. Another change may hold the session for a whole
   * refresh grant, so keep it above the time a grant may take. Default 12 000 (a 10 s grant, plus 2 s).
   */
  readonly lockTimeout?: number;
}

/** An arbitrary constant: the advisory lock under which instances starting together create the table. */
const TABLE_LOCK = 7_261_639;

/** How often, at most, a sign-in also deletes the sessions past their lifetimes. */
const SWEEP_INTERVAL = 60_000;

/** `lock_not_available`: `lock_timeout` ran out. */
const LOCK_NOT_AVAILABLE = '55P03';

/** A time in ms as `timestamptz`, and back: the columns stay readable for people, and exact to the ms. */
const timestamp = (parameter: string) => `to_timestamp(${parameter}::float8 / 1000)`;
const milliseconds = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8 AS ${column}`;
const COLUMNS = `version, data, ${milliseconds('created_at')}, ${milliseconds('last_seen_at')}`;

/**
 * A {@link BffSessionStore} in PostgreSQL, for several instances of the backend-for-frontend behind a
 * load balancer: a burst of requests after an access token expired makes one refresh grant, whichever
 * instances the requests reach.
 *
 * - `change` holds the session's row (`SELECT ... FOR UPDATE`, in a transaction of its own connection)
 *   while its function runs, so changes of one session wait for each other on every instance, and each
 *   sees the row as the previous one committed it. Waiting is bounded by `lockTimeout`. Should the
 *   instance die meanwhile, PostgreSQL rolls the transaction back and frees the row.
 * - On first use, when the table is missing, it creates it (in the first schema of the pool's
 *   `search_path`), under an advisory lock so that instances starting together do not collide.
 * - A sign-in (`create`) also deletes the sessions past their lifetimes, at most once a minute per
 *   instance.
 *
 * Where the app's database role may not create tables, create the table beforehand with the same
 * statements; the role then needs `SELECT`, `INSERT`, `UPDATE` and `DELETE` on it:
 * ```sql
 * CREATE TABLE bff_sessions (key text PRIMARY KEY, version bigint NOT NULL, data jsonb NOT NULL,
 *   created_at timestamptz NOT NULL, last_seen_at timestamptz NOT NULL, expires_at timestamptz NOT NULL);
 * CREATE INDEX bff_sessions_expires_at ON bff_sessions (expires_at);
 * ```
 *
 * The pool's own timeouts still apply: `idle_in_transaction_session_timeout` must leave a change's
 * function (a refresh grant) time to finish, and a `statement_timeout` below `lockTimeout` cuts the wait
 * short (as `StoreUnavailable`). `key` holds the SHA-256 of the cookie's value, never the value; `data`
 * holds the tokens in the clear, so the table deserves the access control of a password table.
 *
 * @usageNotes
 * ```ts
 * import pg from 'pg';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const store = createBffPostgresStore({ pool });
 * ```
 */
export function createBffPostgresStore(options: BffPostgresStoreOptions): BffSessionStore {
  const { pool, lockTimeout } = resolveOptions(options);
  let ready: Promise<void> | null = null;
  let nextSweep = 0;

  /** The table, made once per store; a failure is not remembered, so the next call tries again. */
  const tableReady = (): Promise<void> =>
    (ready ??= createTable(pool).catch((error: unknown) => {
      ready = null;
      throw error;
    }));
  const query = async (what: string, text: string, values: unknown[]): Promise<readonly unknown[]> => {
    await tableReady();
    return (await attempt(what, () => pool.query(text, values))).rows;
  };

  return {
    read: async (key, now) => {
      assertSessionKey(key, 'store.read');
      assertTime(now, 'store.read');
      const [row] = await query(
        'read a session',
        `SELECT ${COLUMNS} FROM bff_sessions WHERE key = $1 AND expires_at > ${timestamp('$2')}`,
        [key, now],
      );
      return row === undefined ? null : toSession(key, row);
    },
    create: async (session) => {
      assertBffSession(session, 'store.create');
      const now = Date.now();
      if (now >= nextSweep) {
        nextSweep = now + SWEEP_INTERVAL;
        await query(
          'delete the sessions past their lifetimes',
          `DELETE FROM bff_sessions WHERE expires_at <= ${timestamp('$1')}`,
          [now],
        );
      }
      const inserted = await query(
        'create a session',
        `INSERT INTO bff_sessions (key, version, data, created_at, last_seen_at, expires_at)
         VALUES ($1, $2, $3::jsonb, ${timestamp('$4')}, ${timestamp('$5')}, ${timestamp('$6')})
         ON CONFLICT (key) DO NOTHING RETURNING key`,
        rowOf(session),
      );
      if (inserted.length === 0) {
        throw new BffError('InvalidSession', 'store.create got a key that exists already (make a new session id)');
      }
    },
    touch: async (key, lastSeenAt) => {
      assertSessionKey(key, 'store.touch');
      assertTime(lastSeenAt, 'store.touch');
      // Only the time, in one statement: the tokens in the row stay whatever the last change wrote,
      // whatever copy of the record the caller holds. The lifetimes come from the row itself.
      await query(
        'record the use of a session',
        `UPDATE bff_sessions SET last_seen_at = ${timestamp('$2')},
           expires_at = least(created_at + (data->>'absoluteTimeout')::float8 * interval '1 millisecond',
                              ${timestamp('$2')} + (data->>'idleTimeout')::float8 * interval '1 millisecond')
         WHERE key = $1 AND last_seen_at < ${timestamp('$2')} AND expires_at > ${timestamp('$2')}`,
        [key, lastSeenAt],
      );
    },
    delete: async (key) => {
      assertSessionKey(key, 'store.delete');
      await query('delete a session', 'DELETE FROM bff_sessions WHERE key = $1', [key]);
    },
    change: async (key, change) => {
      assertSessionKey(key, 'store.change');
      await tableReady();
      return inTransaction(pool, async (run) => {
        await run('limit its wait for a lock', "SELECT set_config('lock_timeout', $1, true)", [`${lockTimeout}ms`]);
        const [row] = await run('lock a session', `SELECT ${COLUMNS} FROM bff_sessions WHERE key = $1 FOR UPDATE`, [
          key,
        ]);
        const stored = row === undefined ? null : toSession(key, row);
        const current = stored !== null && Date.now() < sessionEndsAt(stored) ? stored : null;
        const outcome = await change(current);
        assertSessionChange(outcome, key, current);
        if (outcome.save !== undefined && current !== null) {
          // The row is ours until COMMIT; the version in the WHERE is a second lock that costs nothing,
          // and catches a pool whose connections do not hold row locks (a proxy in statement mode).
          const saved = await run(
            'save a session',
            `UPDATE bff_sessions SET version = $2, data = $3::jsonb, created_at = ${timestamp('$4')},
               last_seen_at = ${timestamp('$5')}, expires_at = ${timestamp('$6')}
             WHERE key = $1 AND version = $7 RETURNING key`,
            [...rowOf(outcome.save), current.version],
          );
          if (saved.length === 0) {
            throw new BffError(
              'StoreUnavailable',
              'a session changed while store.change held it (does the pool give each transaction one connection?)',
            );
          }
        }
        if (outcome.delete) await run('delete a session', 'DELETE FROM bff_sessions WHERE key = $1', [key]);
        return outcome.result;
      });
    },
  };
}

function resolveOptions(options: BffPostgresStoreOptions): Required<BffPostgresStoreOptions> {
  const pool = (options as Partial<BffPostgresStoreOptions> | null | undefined)?.pool;
  if (typeof pool?.query !== 'function' || typeof pool.connect !== 'function') {
    throw new BffError(
      'InvalidOptions',
      'createBffPostgresStore needs { pool }: a pg.Pool, or an object with its query(text, values) and connect()',
    );
  }
  const lockTimeout = options.lockTimeout ?? 12_000;
  if (!Number.isSafeInteger(lockTimeout) || lockTimeout <= 0) {
    throw new BffError(
      'InvalidOptions',
      `createBffPostgresStore's lockTimeout is ${String(lockTimeout)}: give a whole number of milliseconds above 0`,
    );
  }
  return { pool, lockTimeout };
}

/** Creates the table unless it is there; a role that may not create tables works with one made beforehand. */
async function createTable(pool: BffPostgresPool): Promise<void> {
  const [row] = (
    await attempt('look for its table', () =>
      pool.query("SELECT to_regclass('bff_sessions') IS NOT NULL AS present", []),
    )
  ).rows;
  if ((row as { present?: unknown } | undefined)?.present === true) return;
  await inTransaction(pool, async (run) => {
    // Under the lock: two sessions creating one table at once can collide even with IF NOT EXISTS.
    await run('create its table', 'SELECT pg_advisory_xact_lock($1)', [TABLE_LOCK]);
    await run(
      'create its table',
      `CREATE TABLE IF NOT EXISTS bff_sessions (key text PRIMARY KEY, version bigint NOT NULL, data jsonb NOT NULL,
         created_at timestamptz NOT NULL, last_seen_at timestamptz NOT NULL, expires_at timestamptz NOT NULL)`,
      [],
    );
    await run(
      'create its table',
      'CREATE INDEX IF NOT EXISTS bff_sessions_expires_at ON bff_sessions (expires_at)',
      [],
    );
  });
}

type Run = (what: string, text: string, values: unknown[]) => Promise<readonly unknown[]>;

/**
 * Runs `work` in a transaction on a connection of its own, and commits. Whatever fails (a statement,
 * or `work` itself, whose error passes through as it is), the transaction is rolled back; a connection
 * that cannot even roll back is handed back with its error, so that the pool closes it.
 */
async function inTransaction<T>(pool: BffPostgresPool, work: (run: Run) => Promise<T>): Promise<T> {
  const client = await attempt('take a connection', () => pool.connect());
  if (typeof client?.query !== 'function' || typeof client.release !== 'function') {
    throw new BffError('StoreUnavailable', "the pool's connect() gave no connection with query() and release()");
  }
  // pg throws an unhandled 'error' event when the server drops a connection that runs no statement
  // (during `work`); the next statement then fails, and the connection is closed.
  let lost: Error | undefined;
  const onLost = (error: Error) => (lost = error);
  client.on?.('error', onLost);
  let broken: Error | undefined;
  try {
    const run: Run = async (what, text, values) => (await attempt(what, () => client.query(text, values))).rows;
    await run('begin a transaction', 'BEGIN', []);
    const result = await work(run);
    await run('commit a transaction', 'COMMIT', []);
    return result;
  } catch (error) {
    await Promise.resolve()
      .then(() => client.query('ROLLBACK'))
      .catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
    throw error;
  } finally {
    client.removeListener?.('error', onLost);
    client.release(lost ?? broken);
  }
}

/** Runs one call to the pool, turning its failure (thrown or rejected) into a {@link BffError}. */
async function attempt<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof BffError) throw error;
    if ((error as { code?: unknown } | null)?.code === LOCK_NOT_AVAILABLE) {
      throw new BffError(
        'LockTimeout',
        'waited longer than lockTimeout (of createBffPostgresStore) for another change of this session',
        {
          cause: error,
        },
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new BffError('StoreUnavailable', `the PostgreSQL session store could not ${what}: ${reason}`, {
      cause: error,
    });
  }
}

/** The values of the columns `key, version, data, created_at, last_seen_at, expires_at`, in that order. */
function rowOf(session: BffSession): unknown[] {
  const { key, version, createdAt, lastSeenAt, ...data } = session;
  return [key, version, JSON.stringify(data), createdAt, lastSeenAt, sessionEndsAt(session)];
}

function toSession(key: string, row: unknown): BffSession {
  const { version, data, created_at, last_seen_at } = row as Record<string, unknown>;
  // `pg` parses jsonb; a pool without that type parser hands over the text.
  const fields = typeof data === 'string' ? (JSON.parse(data) as object) : (data as object);
  return {
    ...(fields as Omit<BffSession, 'key' | 'version' | 'createdAt' | 'lastSeenAt'>),
    key,
    // bigint comes back as a string from `pg`, as a number from others.
    version: Number(version),
    createdAt: Number(created_at),
    lastSeenAt: Number(last_seen_at),
  };
}
