import { PGlite, type Transaction } from '@electric-sql/pglite';

import type { SqlEngine } from './sql-engine.js';

/**
 * PostgreSQL compiled to WebAssembly, in this process: in memory (`dataDir` null; gone when the
 * process ends) or in a data folder. One connection, so statements run one after another; that is
 * plenty for one server process and needs no installation at all. Runs with `shared_buffers=16MB`.
 *
 * @example
 * const engine = await createPgliteEngine(process.env.PGLITE_DATA_DIR ?? null);
 */
export async function createPgliteEngine(dataDir: string | null): Promise<SqlEngine> {
  // PGlite reserves PostgreSQL's default 128 MB of shared buffers in its WebAssembly memory; one
  // connection over a small database needs far less, and 16 MB saves about 150 MB of resident memory
  // (bench/SERVER-RESULTS.md, "PGlite options").
  const db = await PGlite.create(dataDir ?? undefined, { postgresqlconf: 'shared_buffers=16MB' });
  return {
    description: dataDir === null ? 'PGlite (in memory)' : `PGlite (data folder ${dataDir})`,
    query: (sql, params) => query(db, sql, params),
    exec: (sql) => exec(db, sql),
    transaction: (work) =>
      db.transaction((tx) => work({ query: (sql, params) => query(tx, sql, params), exec: (sql) => exec(tx, sql) })),
    close: () => db.close(),
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
