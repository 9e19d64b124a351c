import type { DatabaseTimeouts } from './database-unavailable-error.js';
import { migrate } from './migrate.js';
import { createPgEngine } from './pg-engine.js';
import { createPgliteEngine } from './pglite-engine.js';
import type { SqlEngine } from './sql-engine.js';

/**
 * Opens the database the configuration names, PostgreSQL when `databaseUrl` is set, else the
 * embedded PGlite (in memory, or in `pgliteDataDir`), and brings its schema up to date. `timeouts`
 * bound every later operation (see the engines); the migrations run without them, since one may
 * rightly take long and instances starting together queue on a lock.
 *
 * @example
 * const engine = await openDatabase({ databaseUrl: process.env.DATABASE_URL ?? null, pgliteDataDir: null });
 */
export async function openDatabase(options: {
  readonly databaseUrl: string | null;
  readonly pgliteDataDir: string | null;
  /** PostgreSQL only: the schema to work in (first on `search_path`); the tests' isolation. */
  readonly schema?: string;
  readonly timeouts?: DatabaseTimeouts;
}): Promise<SqlEngine> {
  const { databaseUrl, schema, timeouts } = options;
  if (databaseUrl) {
    await migrated(createPgEngine(databaseUrl, { schema }), async (engine) => engine.close());
    return createPgEngine(databaseUrl, { schema, timeouts });
  }
  // One PGlite per process and folder: migrated before anything else can queue on it.
  const engine = await createPgliteEngine(options.pgliteDataDir, { waitTimeoutMs: timeouts?.statementTimeoutMs });
  return migrated(engine, async () => undefined);
}

async function migrated(engine: SqlEngine, done: (engine: SqlEngine) => Promise<void>): Promise<SqlEngine> {
  try {
    await migrate(engine);
  } catch (error) {
    await engine.close().catch(() => undefined);
    throw error;
  }
  await done(engine);
  return engine;
}
