import pg from 'pg';

import type { SqlEngine, SqlExecutor } from './sql-engine.js';

/**
 * A real PostgreSQL through a `pg` connection pool: the engine for several server instances behind
 * a load balancer, which then share the refresh tokens and the users. `schema`, when given, is put
 * first on every connection's `search_path` (the tests run each suite in a fresh schema).
 *
 * @example
 * const engine = createPgEngine(process.env.DATABASE_URL);
 */
export function createPgEngine(connectionString: string, options: { readonly schema?: string } = {}): SqlEngine {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle connection that breaks (database restarted) must not crash the process; the next query
  // gets a fresh one.
  pool.on('error', () => undefined);
  return {
    description: 'PostgreSQL',
    query: async (sql, params = []) => (await pool.query(sql, [...params])).rows,
    exec: async (sql) => {
      await pool.query(sql);
    },
    transaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(executor(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

function executor(client: pg.PoolClient): SqlExecutor {
  return {
    query: async (sql, params = []) => (await client.query(sql, [...params])).rows,
    exec: async (sql) => {
      await client.query(sql);
    },
  };
}
