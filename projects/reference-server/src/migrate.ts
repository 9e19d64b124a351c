import { readFile, readdir } from 'node:fs/promises';

import type { SqlEngine } from './sql-engine.js';

/** The migrations folder, next to `src/` and `dist/`: the same files for both engines. */
const MIGRATIONS = new URL('../migrations/', import.meta.url);

/** An arbitrary constant: the advisory lock that makes concurrent instances migrate one at a time. */
const MIGRATION_LOCK = 7_261_544;

/**
 * Applies the `migrations/*.sql` files not applied yet, in file-name order, each in its own
 * transaction, and records them in `schema_migrations`. Several instances starting at once against
 * one PostgreSQL queue on an advisory lock, so each migration runs exactly once. Returns the names
 * it applied.
 *
 * @example
 * await migrate(engine); // ['001_initial.sql'] on a fresh database, [] afterwards
 */
export async function migrate(engine: SqlEngine): Promise<string[]> {
  const files = (await readdir(MIGRATIONS)).filter((name) => /^\d+_[\w-]+\.sql$/.test(name)).sort();
  const applied: string[] = [];
  for (const name of files) {
    const sql = await readFile(new URL(name, MIGRATIONS), 'utf8');
    const ran = await engine.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      // Under the lock: two sessions creating one table at once can collide even with IF NOT EXISTS.
      await tx.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name]);
      if (done.length > 0) return false;
      await tx.exec(sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      return true;
    });
    if (ran) applied.push(name);
  }
  return applied;
}
