import { randomBytes } from 'node:crypto';

import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

import type { BffPostgresPool } from './public-api';

// The databases the PostgreSQL store's specs run on: PGlite in memory always, and the PostgreSQL that
// DATABASE_URL names when it is set (a fresh schema of it, dropped at the end), as the reference
// server's suite does.

/** A database for one suite; see {@link testDatabases}. */
export interface TestDatabase {
  /** A pool on it, as one instance of the app opens it. */
  readonly pool: BffPostgresPool;
  /**
   * Another pool on the same database, as a second instance opens it; `null` on PGlite, which is one
   * connection inside this process (its cases are PostgreSQL only).
   */
  connectAgain(): BffPostgresPool | null;
  /** Runs a statement outside every store, to look at the table or to arrange it. */
  query(text: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Closes every pool (and drops the PostgreSQL schema). */
  close(): Promise<void>;
}

/** The databases to run on, each with its name for the suite's title. */
export function testDatabases(): { readonly name: string; readonly open: () => Promise<TestDatabase> }[] {
  const databaseUrl = process.env['DATABASE_URL'] || null;
  return [
    { name: 'PGlite', open: openPglite },
    ...(databaseUrl === null ? [] : [{ name: 'PostgreSQL', open: () => openPostgres(databaseUrl) }]),
  ];
}

/**
 * PGlite in memory behind a pool's shape. It has one connection: a transaction (`connect` to
 * `release`) and each statement of the pool itself take it alone, in turn, or two transactions would
 * interleave on it. So it proves the store's SQL, not its locking between connections.
 */
async function openPglite(): Promise<TestDatabase> {
  const db = await PGlite.create();
  const inTurn = createMutex();
  const query = async (text: string, values?: unknown[]) => db.query<Record<string, unknown>>(text, values);
  const pool: BffPostgresPool = {
    query: async (text, values) => {
      const release = await inTurn();
      try {
        return await query(text, values);
      } finally {
        release();
      }
    },
    connect: async () => {
      const release = await inTurn();
      let released = false;
      return {
        query,
        release: () => {
          if (!released) release();
          released = true;
        },
      };
    },
  };
  return {
    pool,
    connectAgain: () => null,
    query: async (text, values) => (await pool.query(text, values)).rows as Record<string, unknown>[],
    close: () => db.close(),
  };
}

async function openPostgres(databaseUrl: string): Promise<TestDatabase> {
  const schema = `bff_test_${randomBytes(6).toString('hex')}`;
  const pools: pg.Pool[] = [];
  const openPool = () => {
    const pool = new pg.Pool({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
    // A connection the server drops while idle (a spec terminates some) must not end the process.
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  const admin = openPool();
  await admin.query(`CREATE SCHEMA ${schema}`);
  return {
    pool: openPool(),
    connectAgain: openPool,
    query: async (text, values) => (await admin.query(text, values)).rows,
    close: async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
}

/** A lock: resolves with its release once every earlier holder has released it. */
function createMutex(): () => Promise<() => void> {
  let last = Promise.resolve();
  return () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const acquired = last.then(() => release);
    last = last.then(() => released);
    return acquired;
  };
}
