import { migrate } from './migrate.js';
import { createPgEngine } from './pg-engine.js';
import { createPgliteEngine } from './pglite-engine.js';
import type { SqlEngine } from './sql-engine.js';

/**
 * Opens the database the configuration names, PostgreSQL when `databaseUrl` is set, else the
 * embedded PGlite (in memory, or in `pgliteDataDir`), and brings its schema up to date.
 *
 * @example
 * const engine = await openDatabase({ databaseUrl: process.env.DATABASE_URL ?? null, pgliteDataDir: null });
 */
export async function openDatabase(options: {
  readonly databaseUrl: string | null;
  readonly pgliteDataDir: string | null;
  /** PostgreSQL only: the schema to work in (first on `search_path`); the tests' isolation. */
  readonly schema?: string;
}): Promise<SqlEngine> {
  const engine = options.databaseUrl
    ? createPgEngine(options.databaseUrl, { schema: options.schema })
    : await createPgliteEngine(options.pgliteDataDir);
  try {
    await migrate(engine);
  } catch (error) {
    await engine.close().catch(() => undefined);
    throw error;
  }
  return engine;
}
