import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';

import { isBffError, newKey, newSession } from './bff-session.spec-helper';
import { type BffPostgresClient, type BffPostgresPool, type BffError, createBffPostgresStore } from './public-api';
import { type TestDatabase, testDatabases } from './test-pool.spec-helper';

// What the PostgreSQL store does beyond the contract of BffSessionStore (bff-session-store.spec.ts):
// its options, its table, its sweep of expired rows, and what it makes of a pool that fails.

const MINUTE = 60_000;

describe('createBffPostgresStore: options', () => {
  const pool: BffPostgresPool = {
    query: async () => ({ rows: [] }),
    connect: async () => assert.fail('no connection'),
  };

  it('refuses a missing pool, or one without query and connect, naming what it needs', () => {
    for (const options of [
      undefined,
      {},
      { pool: {} },
      { pool: { query: () => undefined } },
      { pool: 'postgres://' },
    ]) {
      assert.throws(
        () => createBffPostgresStore(options as never),
        isBffError('InvalidOptions', /createBffPostgresStore needs \{ pool \}: a pg\.Pool/),
        JSON.stringify(options),
      );
    }
  });

  it('refuses a lockTimeout that is not a whole number of milliseconds above 0', () => {
    for (const lockTimeout of [0, -1, 1.5, '12s', Number.NaN, Infinity]) {
      assert.throws(
        () => createBffPostgresStore({ pool, lockTimeout: lockTimeout as number }),
        isBffError('InvalidOptions', /lockTimeout is .*: give a whole number of milliseconds above 0/),
        String(lockTimeout),
      );
    }
  });
});

describe('createBffPostgresStore: a pool that fails', () => {
  it('rejects with StoreUnavailable, naming the step and keeping the cause, when a statement fails', async () => {
    const cause = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
    const store = createBffPostgresStore({ pool: { query: async () => Promise.reject(cause), connect: refuse } });
    await assert.rejects(store.read(await newKey(), Date.now()), (error) => {
      isBffError('StoreUnavailable', /could not look for its table: connection refused/)(error);
      assert.equal((error as BffError).cause, cause);
      return true;
    });
  });

  it('rejects (and does not throw) when the pool throws instead of rejecting', async () => {
    const store = createBffPostgresStore({
      pool: {
        query: () => {
          throw new TypeError('Client was passed a null or undefined query');
        },
        connect: refuse,
      },
    });
    const reading = store.read(await newKey(), Date.now());
    await assert.rejects(reading, isBffError('StoreUnavailable', /Client was passed a null or undefined query/));
  });

  it('rejects a change with StoreUnavailable when no connection comes, or one without query and release', async () => {
    const present = async () => ({ rows: [{ present: true }] });
    const noConnection = createBffPostgresStore({
      pool: { query: present, connect: () => Promise.reject(new Error('timeout exceeded when trying to connect')) },
    });
    await assert.rejects(
      noConnection.change(await newKey(), () => ({ result: null })),
      isBffError('StoreUnavailable', /could not take a connection: timeout exceeded/),
    );
    const notAClient = createBffPostgresStore({
      pool: { query: present, connect: async () => ({}) as BffPostgresClient },
    });
    await assert.rejects(
      notAClient.change(await newKey(), () => ({ result: null })),
      isBffError('StoreUnavailable', /connect\(\) gave no connection with query\(\) and release\(\)/),
    );
  });

  it('hands a connection that cannot even roll back to the pool with the error, so that the pool closes it', async () => {
    const lost = new Error('Connection terminated unexpectedly');
    const released: unknown[] = [];
    const store = createBffPostgresStore({
      pool: {
        query: async () => ({ rows: [{ present: true }] }),
        connect: async () => ({
          query: async (text) => (text === 'BEGIN' ? { rows: [] } : Promise.reject(lost)),
          release: (error) => released.push(error),
        }),
      },
    });
    await assert.rejects(
      store.change(await newKey(), () => ({ result: null })),
      isBffError('StoreUnavailable', /Connection terminated unexpectedly/),
    );
    assert.deepEqual(released, [lost]);
  });
});

for (const { name, open } of testDatabases()) {
  describe(`createBffPostgresStore on ${name}`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await open();
    });
    after(() => database.close());
    beforeEach(() => database.query('DROP TABLE IF EXISTS bff_sessions'));

    it('creates its table and index on first use', async () => {
      const store = createBffPostgresStore({ pool: database.pool });
      assert.equal(await store.read(await newKey(), Date.now()), null);
      const columns = await database.query(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns
         WHERE table_name = 'bff_sessions' AND table_schema = current_schema() ORDER BY ordinal_position`,
      );
      assert.deepEqual(
        columns.map((column) => `${column['column_name']} ${column['data_type']} ${column['is_nullable']}`),
        [
          'key text NO',
          'version bigint NO',
          'data jsonb NO',
          'created_at timestamp with time zone NO',
          'last_seen_at timestamp with time zone NO',
          'expires_at timestamp with time zone NO',
        ],
      );
      const indexes = await database.query(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'bff_sessions' AND schemaname = current_schema() ORDER BY 1",
      );
      assert.deepEqual(
        indexes.map((index) => index['indexname']),
        ['bff_sessions_expires_at', 'bff_sessions_pkey'],
      );
    });

    it('sends no CREATE when the table is there (a role that may not create tables works)', async () => {
      await createBffPostgresStore({ pool: database.pool }).read(await newKey(), Date.now());
      const statements: string[] = [];
      const store = createBffPostgresStore({ pool: recording(database.pool, statements) });
      const session = await newSession();
      await store.create(session);
      await store.change(session.key, (current) => ({ result: null, save: { ...current!, version: 2 } }));
      assert.deepEqual(
        statements.filter((text) => /\bCREATE\b/i.test(text)),
        [],
      );
    });

    it('tries to create the table again after a failed attempt', async () => {
      let failures = 1;
      const flaky: BffPostgresPool = {
        query: (text, values) =>
          /to_regclass/.test(text) && failures-- > 0
            ? Promise.reject(new Error('the database is starting up'))
            : database.pool.query(text, values),
        connect: () => database.pool.connect(),
      };
      const store = createBffPostgresStore({ pool: flaky });
      await assert.rejects(store.read(await newKey(), Date.now()), /the database is starting up/);
      const session = await newSession();
      await store.create(session);
      assert.deepEqual(await store.read(session.key, Date.now()), session);
    });

    it('creates the table once when instances start together (PostgreSQL only)', async (context) => {
      const pools = [database.connectAgain(), database.connectAgain(), database.connectAgain()];
      if (pools[0] === null) return context.skip('needs several connections');
      const sessions = await Promise.all(pools.map(() => newSession()));
      await Promise.all(pools.map((pool, index) => createBffPostgresStore({ pool: pool! }).create(sessions[index])));
      const [{ count }] = await database.query('SELECT count(*)::int AS count FROM bff_sessions');
      assert.equal(count, 3);
    });

    it('deletes the sessions past their lifetimes at a sign-in, at most once a minute', async () => {
      const first = createBffPostgresStore({ pool: database.pool });
      const expired = await newSession({ createdAt: Date.now() - 2 * MINUTE, absoluteTimeout: MINUTE });
      await first.create(expired);
      await first.create(await newSession());
      assert.equal(await rowCount(expired.key), 1, 'swept again within the minute');
      // Another instance's first sign-in sweeps.
      await createBffPostgresStore({ pool: database.pool }).create(await newSession());
      assert.equal(await rowCount(expired.key), 0);
    });

    it('reads rows from a pool that parses neither jsonb nor bigint', async () => {
      const session = await newSession({ version: 9_007_199_254 });
      await createBffPostgresStore({ pool: database.pool }).create(session);
      const raw: BffPostgresPool = {
        query: async (text, values) => {
          const { rows } = await database.pool.query(text, values);
          return {
            rows: rows.map((row) => {
              const { data, version, ...rest } = row as Record<string, unknown>;
              return { ...rest, data: JSON.stringify(data), version: String(version) };
            }),
          };
        },
        connect: () => database.pool.connect(),
      };
      assert.deepEqual(await createBffPostgresStore({ pool: raw }).read(session.key, Date.now()), session);
    });

    it('keeps the times exact to the millisecond', async () => {
      const createdAt = Date.parse('2026-11-25T10:11:12.345Z');
      const session = await newSession({ createdAt: createdAt, lastSeenAt: createdAt + 1, idleTimeout: 10 ** 12 });
      const store = createBffPostgresStore({ pool: database.pool });
      await store.create(session);
      const read = await store.read(session.key, createdAt);
      assert.equal(read?.createdAt, createdAt);
      assert.equal(read?.lastSeenAt, createdAt + 1);
    });

    async function rowCount(key: string): Promise<number> {
      const [{ count }] = await database.query('SELECT count(*)::int AS count FROM bff_sessions WHERE key = $1', [key]);
      return count as number;
    }
  });
}

/** `pool`, writing down the text of every statement sent through it or its connections. */
function recording(pool: BffPostgresPool, statements: string[]): BffPostgresPool {
  return {
    query: (text, values) => (statements.push(text), pool.query(text, values)),
    connect: async () => {
      const client = await pool.connect();
      return {
        query: (text, values) => (statements.push(text), client.query(text, values)),
        release: (error) => client.release(error),
      };
    },
  };
}

function refuse(): Promise<never> {
  return Promise.reject(new Error('this pool gives no connection'));
}
