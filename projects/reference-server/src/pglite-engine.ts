import { PGlite, type Transaction } from '@electric-sql/pglite';

import { DatabaseUnavailableError } from './database-unavailable-error.js';
import type { SqlEngine } from './sql-engine.js';

/**
 * PostgreSQL compiled to WebAssembly, in this process: in memory (`dataDir` null; gone when the
 * process ends) or in a data folder. One connection, so statements run one after another; that is
 * plenty for one server process and needs no installation at all. Runs with `shared_buffers=16MB`.
 *
 * With `waitTimeoutMs`, an operation (a statement, or a whole transaction) that cannot start within
 * that time, because the one connection is still busy (a long transaction, a statement holding it),
 * is dropped without running and throws {@link DatabaseUnavailableError}: PGlite's equivalent of
 * PostgreSQL's statement timeout. Once started, an operation runs to its end (PGlite cannot cancel
 * a statement), so a timed-out request never leaves a half-known write behind.
 *
 * @example
 * const engine = await createPgliteEngine(process.env.PGLITE_DATA_DIR ?? null, { waitTimeoutMs: 5000 });
 */
export async function createPgliteEngine(
  dataDir: string | null,
  options: { readonly waitTimeoutMs?: number } = {},
): Promise<SqlEngine> {
  // PGlite reserves PostgreSQL's default 128 MB of shared buffers in its WebAssembly memory; one
  // connection over a small database needs far less, and 16 MB saves about 150 MB of resident memory
  // (bench/SERVER-RESULTS.md, "PGlite options").
  const db = await PGlite.create(dataDir ?? undefined, { postgresqlconf: 'shared_buffers=16MB' });
  const inTurn = createTurns(options.waitTimeoutMs ?? null);
  return {
    description: dataDir === null ? 'PGlite (in memory)' : `PGlite (data folder ${dataDir})`,
    query: (sql, params) => inTurn(() => query(db, sql, params)),
    exec: (sql) => inTurn(() => exec(db, sql)),
    transaction: (work) =>
      inTurn(() =>
        db.transaction((tx) => work({ query: (sql, params) => query(tx, sql, params), exec: (sql) => exec(tx, sql) })),
      ),
    close: () => db.close(),
  };
}

/**
 * One operation at a time, in order of arrival, each waiting at most `waitTimeoutMs` for its turn
 * (`null`: for ever). A late one gives up its place in the queue and never runs.
 */
function createTurns(waitTimeoutMs: number | null): <T>(operation: () => Promise<T>) => Promise<T> {
  let last: Promise<void> = Promise.resolve();
  return async (operation) => {
    const previous = last;
    let done!: () => void;
    last = new Promise((resolve) => (done = resolve));
    if (waitTimeoutMs !== null) {
      let timer: NodeJS.Timeout | undefined;
      const started = await Promise.race([
        previous.then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitTimeoutMs))),
      ]);
      clearTimeout(timer);
      if (!started) {
        // Pass the turn on when it comes, so the queue behind this one is not stuck.
        void previous.then(done);
        throw new DatabaseUnavailableError(`the database was busy for more than ${waitTimeoutMs} ms`);
      }
    } else {
      await previous;
    }
    try {
      return await operation();
    } finally {
      done();
    }
  };
}

async function query<Row extends object>(
  db: PGlite | Transaction,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Row[]> {
  const result = await db.query<Row>(sql, [...params]);
  return result.rows;
}

async function exec(db: PGlite | Transaction, sql: string): Promise<void> {
  await db.exec(sql);
}
