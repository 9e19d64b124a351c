import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';

import { isBffError, newSession } from './bff-session.spec-helper';
import {
  type BffPostgresPool,
  type BffSession,
  type BffSessionStore,
  createBffMemoryStore,
  createBffPostgresStore,
} from './public-api';
import { testDatabases } from './test-pool.spec-helper';

// The contract of BffSessionStore, run against every store the entry point ships: the memory store,
// and the PostgreSQL store on PGlite and (with DATABASE_URL) on a real PostgreSQL. Cases that need two
// connections holding locks at once are named "(PostgreSQL only)"; PGlite is one connection.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** For the cases where changes wait for each other: a store that waits for ever fails instead of hanging. */
const WAITS = { timeout: 10_000 };

/** What each suite runs on. */
interface Subject {
  readonly store: BffSessionStore;
  /** Whether changes of different sessions can run at once (not on PGlite's one connection). */
  readonly parallel: boolean;
  /** A store of another instance on the same database, when there can be one. */
  readonly otherInstance: ((options?: { lockTimeout?: number }) => BffSessionStore) | null;
  /** A store on a pool that a test can break (see {@link BreakablePool}), on PostgreSQL only. */
  readonly breakablePool: (() => BreakablePool) | null;
  close(): Promise<void>;
}

const subjects: { readonly name: string; readonly open: () => Promise<Subject> }[] = [
  {
    name: 'the memory store',
    open: async () => ({
      store: createBffMemoryStore(),
      parallel: true,
      otherInstance: null,
      breakablePool: null,
      close: async () => undefined,
    }),
  },
  ...testDatabases().map(({ name, open }) => ({
    name: `the PostgreSQL store on ${name}`,
    open: async (): Promise<Subject> => {
      const database = await open();
      const again = database.connectAgain();
      return {
        store: createBffPostgresStore({ pool: database.pool }),
        parallel: again !== null,
        otherInstance: again === null ? null : (options = {}) => createBffPostgresStore({ pool: again, ...options }),
        breakablePool:
          again === null
            ? null
            : () =>
                breakable(database.connectAgain() as BffPostgresPool, (pid) =>
                  database.query('SELECT pg_terminate_backend($1)', [pid]),
                ),
        close: () => database.close(),
      };
    },
  })),
];

for (const { name, open } of subjects) {
  describe(`BffSessionStore: ${name}`, () => {
    let subject: Subject;
    let store: BffSessionStore;
    before(async () => {
      subject = await open();
      store = subject.store;
    });
    after(() => subject.close());

    describe('create and read', () => {
      it('reads back the session it created', async () => {
        const session = await newSession();
        await store.create(session);
        assert.deepEqual(await store.read(session.key, session.createdAt), session);
      });

      it('reads null for a key it never stored', async () => {
        assert.equal(await store.read((await newSession()).key, Date.now()), null);
      });

      it('hands out copies: changing a record read changes nothing stored', async () => {
        const session = await newSession();
        await store.create(session);
        const copy = (await store.read(session.key, session.createdAt)) as {
          -readonly [K in keyof BffSession]: unknown;
        };
        copy.accessToken = 'changed';
        (copy.claims as Record<string, unknown>)['name'] = 'changed';
        assert.deepEqual(await store.read(session.key, session.createdAt), session);
      });

      it('refuses a second session of the same key', async () => {
        const session = await newSession();
        await store.create(session);
        await assert.rejects(
          store.create({ ...session, accessToken: 'other' }),
          isBffError('InvalidSession', /exists/),
        );
        assert.equal((await store.read(session.key, session.createdAt))?.accessToken, session.accessToken);
      });

      it('refuses a record that is not a session, naming what is wrong, and stores nothing', async () => {
        const session = await newSession();
        const wrong: [string, unknown, RegExp][] = [
          ['the cookie value as key', { ...session, key: 'short' }, /key is not 43 characters/],
          ['a claim JSON would drop', { ...session, claims: { at: new Date() } }, /claims are not an object of JSON/],
          ['no idle lifetime', { ...session, idleTimeout: undefined }, /idleTimeout is missing/],
          ['a lifetime in a string', { ...session, absoluteTimeout: '12h' }, /absoluteTimeout is a string/],
          ['an empty access token', { ...session, accessToken: '' }, /accessToken is an empty string/],
          ['no record at all', null, /null instead of a session record/],
        ];
        for (const [what, record, message] of wrong) {
          await assert.rejects(store.create(record as BffSession), isBffError('InvalidSession', message), what);
        }
        assert.equal(await store.read(session.key, session.createdAt), null);
      });

      it('refuses a key that is not a SHA-256 digest in every method', async () => {
        const cookieValue = 'not-hashed';
        const message = /store\.\w+ got a key that is not 43 characters/;
        await assert.rejects(store.read(cookieValue, Date.now()), isBffError('InvalidSession', message));
        await assert.rejects(store.touch(cookieValue, Date.now()), isBffError('InvalidSession', message));
        await assert.rejects(store.delete(cookieValue), isBffError('InvalidSession', message));
        await assert.rejects(
          store.change(cookieValue, () => ({ result: null })),
          isBffError('InvalidSession', message),
        );
      });
    });

    describe('lifetimes', () => {
      it('reads null from the end of the absolute lifetime on, however recently used', async () => {
        const session = await newSession({ idleTimeout: HOUR, absoluteTimeout: 2 * HOUR });
        await store.create(session);
        const end = session.createdAt + 2 * HOUR;
        await store.touch(session.key, session.createdAt + 50 * MINUTE);
        await store.touch(session.key, session.createdAt + 100 * MINUTE);
        assert.notEqual(await store.read(session.key, end - 1), null);
        assert.equal(await store.read(session.key, end), null);
      });

      it('reads null from the end of the idle lifetime on', async () => {
        const session = await newSession({ idleTimeout: 30 * MINUTE, absoluteTimeout: 12 * HOUR });
        await store.create(session);
        const end = session.lastSeenAt + 30 * MINUTE;
        assert.notEqual(await store.read(session.key, end - 1), null);
        assert.equal(await store.read(session.key, end), null);
      });

      it('touch restarts the idle lifetime and writes the time it was given', async () => {
        const session = await newSession({ idleTimeout: 30 * MINUTE });
        await store.create(session);
        const seen = session.lastSeenAt + 20 * MINUTE;
        await store.touch(session.key, seen);
        const read = await store.read(session.key, session.lastSeenAt + 40 * MINUTE);
        assert.deepEqual(read, { ...session, lastSeenAt: seen });
        assert.equal(await store.read(session.key, seen + 30 * MINUTE), null);
      });

      it('touch never moves the last use back (instances touching out of order)', async () => {
        const session = await newSession({ idleTimeout: 30 * MINUTE });
        await store.create(session);
        await store.touch(session.key, session.lastSeenAt + 20 * MINUTE);
        await store.touch(session.key, session.lastSeenAt + 10 * MINUTE);
        assert.equal((await store.read(session.key, session.createdAt))?.lastSeenAt, session.lastSeenAt + 20 * MINUTE);
      });

      it('touch brings back no session past its idle lifetime', async () => {
        const session = await newSession({ idleTimeout: 30 * MINUTE });
        await store.create(session);
        await store.touch(session.key, session.lastSeenAt + 31 * MINUTE);
        assert.equal(await store.read(session.key, session.lastSeenAt + 31 * MINUTE), null);
      });

      it('change sees a session past its lifetimes as null', async () => {
        const createdAt = Date.now() - 2 * HOUR;
        const session = await newSession({ createdAt, lastSeenAt: createdAt, absoluteTimeout: HOUR });
        await store.create(session);
        let seen: BffSession | null | undefined;
        await store.change(session.key, (current) => {
          seen = current;
          return { result: null };
        });
        assert.equal(seen, null);
      });
    });

    describe('touch and the tokens', () => {
      it('touch never writes back the tokens of an old copy (a refresh rotated them meanwhile)', async () => {
        const session = await newSession();
        await store.create(session);
        // Request 1 reads the session, then request 2 refreshes it; request 1 then records its use.
        const stale = (await store.read(session.key, Date.now())) as BffSession;
        await store.change(session.key, (current) => ({ result: null, save: refreshed(current) }));
        await store.touch(stale.key, stale.lastSeenAt + 1_000);
        const now = await store.read(session.key, Date.now());
        assert.equal(now?.refreshToken, 'refresh-2');
        assert.equal(now?.accessToken, 'access-2');
        assert.equal(now?.version, session.version + 1);
        assert.equal(now?.lastSeenAt, stale.lastSeenAt + 1_000);
      });

      it('touch leaves the version as it is', async () => {
        const session = await newSession();
        await store.create(session);
        await store.touch(session.key, session.lastSeenAt + 1_000);
        assert.equal((await store.read(session.key, Date.now()))?.version, session.version);
      });
    });

    describe('delete', () => {
      it('removes the session; deleting a key that is not there is no error', async () => {
        const session = await newSession();
        await store.create(session);
        await store.delete(session.key);
        await store.delete(session.key);
        assert.equal(await store.read(session.key, session.createdAt), null);
      });
    });

    describe('change', () => {
      it('saves the next version and resolves with the result', async () => {
        const session = await newSession();
        await store.create(session);
        const result = await store.change(session.key, (current) => ({ result: 'done', save: refreshed(current) }));
        assert.equal(result, 'done');
        assert.deepEqual(await store.read(session.key, Date.now()), refreshed(session));
      });

      it('writes nothing when the function asks for nothing', async () => {
        const session = await newSession();
        await store.create(session);
        assert.equal(await store.change(session.key, async () => ({ result: 7 })), 7);
        assert.deepEqual(await store.read(session.key, Date.now()), session);
      });

      it('deletes the session when the function says so', async () => {
        const session = await newSession();
        await store.create(session);
        await store.change(session.key, () => ({ result: null, delete: true }));
        assert.equal(await store.read(session.key, Date.now()), null);
      });

      it('hands the function null for a session that is not there', async () => {
        let seen: BffSession | null | undefined;
        await store.change((await newSession()).key, (current) => {
          seen = current;
          return { result: null };
        });
        assert.equal(seen, null);
      });

      it('refuses a save of another version, another key, or of a session that is not there', async () => {
        const session = await newSession();
        const other = await newSession();
        await store.create(session);
        const next = refreshed(session);
        const wrong: [string, string, BffSession, RegExp][] = [
          ['the same version', session.key, { ...next, version: session.version }, /saved version 1 over version 1/],
          ['a version skipped', session.key, { ...next, version: session.version + 2 }, /saved version 3 over/],
          ['another key', session.key, { ...next, key: other.key }, /another key/],
          ['a session not there', other.key, { ...next, key: other.key }, /not there/],
        ];
        for (const [what, key, save, message] of wrong) {
          await assert.rejects(
            store.change(key, () => ({ result: null, save })),
            isBffError('InvalidSession', message),
            what,
          );
        }
        assert.deepEqual(await store.read(session.key, Date.now()), session);
        assert.equal(await store.read(other.key, Date.now()), null);
      });

      it('refuses an answer other than { result, save?, delete? }, and writes nothing', async () => {
        const session = await newSession();
        await store.create(session);
        const next = refreshed(session);
        const wrong: [string, unknown, RegExp][] = [
          ['nothing', undefined, /returned something other than \{ result, save\?, delete\? \}/],
          ['a bare record', next, /returned something other than/],
          ['save and delete', { result: null, save: next, delete: true }, /both save and delete/],
          ['delete: 1', { result: null, delete: 1 }, /a delete other than true/],
        ];
        for (const [what, answer, message] of wrong) {
          await assert.rejects(
            store.change(session.key, () => answer as never),
            isBffError('InvalidSession', message),
            what,
          );
        }
        assert.deepEqual(await store.read(session.key, Date.now()), session);
      });

      it("rejects with the function's own error, writes nothing, and lets the next change run", async () => {
        const session = await newSession();
        await store.create(session);
        const failure = new Error('the provider is down');
        await assert.rejects(
          store.change(session.key, async () => {
            throw failure;
          }),
          (error) => error === failure,
        );
        assert.deepEqual(await store.read(session.key, Date.now()), session);
        assert.equal(await store.change(session.key, () => ({ result: 'next' })), 'next');
      });

      it('runs the changes of one session one at a time, each seeing the write of the one before', WAITS, async () => {
        const session = await newSession();
        await store.create(session);
        const first = deferred();
        const seen: number[] = [];
        const firstChange = store.change(session.key, async (current) => {
          seen.push(current?.version ?? -1);
          await first.promise;
          return { result: null, save: refreshed(current) };
        });
        await sleep(50);
        const secondChange = store.change(session.key, (current) => {
          seen.push(current?.version ?? -1);
          return { result: null };
        });
        await sleep(100);
        const whileHeld = [...seen];
        first.resolve();
        await Promise.all([firstChange, secondChange]);
        assert.deepEqual(whileHeld, [1], 'the second change ran while the first held the session');
        assert.deepEqual(seen, [1, 2]);
      });

      it('does not make changes of another session wait', WAITS, async (context) => {
        if (!subject.parallel) return context.skip('one connection: every transaction waits for the one before');
        const [held, other] = [await newSession(), await newSession()];
        await store.create(held);
        await store.create(other);
        const release = deferred();
        const holding = store.change(held.key, async () => {
          await release.promise;
          return { result: null };
        });
        await sleep(50);
        const result = await Promise.race([
          store.change(other.key, () => ({ result: 'not kept waiting' })),
          sleep(2_000, 'kept waiting'),
        ]);
        release.resolve();
        await holding;
        assert.equal(result, 'not kept waiting');
      });

      it('lets a delete asked for during a change wait, then remove the changed session', WAITS, async () => {
        const session = await newSession();
        await store.create(session);
        const release = deferred();
        const changing = store.change(session.key, async (current) => {
          await release.promise;
          return { result: null, save: refreshed(current) };
        });
        await sleep(50);
        const deleting = store.delete(session.key);
        await sleep(50);
        release.resolve();
        await Promise.all([changing, deleting]);
        assert.equal(await store.read(session.key, Date.now()), null);
      });
    });

    describe('two instances on one database', () => {
      it("waits for the other instance's change and sees its version (PostgreSQL only)", WAITS, async (context) => {
        if (subject.otherInstance === null) return context.skip('needs a second connection');
        const [a, b] = [store, subject.otherInstance()];
        const session = await newSession();
        await a.create(session);
        const releaseA = deferred();
        const startedA = deferred();
        const changeA = a.change(session.key, async (current) => {
          startedA.resolve();
          await releaseA.promise;
          return { result: null, save: refreshed(current) };
        });
        await startedA.promise;
        let seenByB: BffSession | null | undefined;
        const changeB = b.change(session.key, (current) => {
          seenByB = current;
          return { result: null };
        });
        await sleep(200);
        const seenWhileHeld = seenByB;
        releaseA.resolve();
        await Promise.all([changeA, changeB]);
        assert.equal(seenWhileHeld, undefined, "B's change ran while A held the session");
        assert.equal(seenByB?.version, session.version + 1);
        assert.equal(seenByB?.refreshToken, 'refresh-2');
      });

      it(
        'gives up after lockTimeout with a LockTimeout error and writes nothing (PostgreSQL only)',
        WAITS,
        async (context) => {
          if (subject.otherInstance === null) return context.skip('needs a second connection');
          const b = subject.otherInstance({ lockTimeout: 300 });
          const session = await newSession();
          await store.create(session);
          const releaseA = deferred();
          const startedA = deferred();
          const changeA = store.change(session.key, async () => {
            startedA.resolve();
            await releaseA.promise;
            return { result: null };
          });
          await startedA.promise;
          let ranB = false;
          const changeB = b.change(session.key, (current) => {
            ranB = true;
            return { result: null, save: refreshed(current) };
          });
          const outcomeB = await Promise.race([
            changeB.then(
              () => 'changed',
              (error: unknown) => error,
            ),
            sleep(3_000, 'waiting'),
          ]);
          releaseA.resolve();
          await changeA;
          isBffError('LockTimeout', /lockTimeout/)(outcomeB);
          assert.equal(ranB, false);
          assert.deepEqual(await store.read(session.key, Date.now()), session);
        },
      );

      it(
        "frees the session for other instances when a change's function throws (PostgreSQL only)",
        WAITS,
        async (context) => {
          if (subject.otherInstance === null) return context.skip('needs a second connection');
          const session = await newSession();
          await store.create(session);
          await assert.rejects(
            store.change(session.key, async () => {
              throw new Error('the provider is down');
            }),
            /the provider is down/,
          );
          const other = subject.otherInstance({ lockTimeout: 1_000 });
          assert.equal(await other.change(session.key, (current) => ({ result: current?.version })), session.version);
        },
      );

      it(
        'writes nothing and frees the session when the connection of a change dies (PostgreSQL only)',
        WAITS,
        async (context) => {
          if (subject.breakablePool === null) return context.skip('needs a connection that can be terminated');
          const broken = subject.breakablePool();
          const dying = createBffPostgresStore({ pool: broken.pool });
          const session = await newSession();
          await store.create(session);
          await assert.rejects(
            dying.change(session.key, async (current) => {
              await broken.terminateLast();
              return { result: null, save: refreshed(current) };
            }),
            isBffError('StoreUnavailable', /could not save a session/),
          );
          assert.deepEqual(await store.read(session.key, Date.now()), session);
          const after = (subject.otherInstance as NonNullable<Subject['otherInstance']>)({ lockTimeout: 1_000 });
          await after.change(session.key, (current) => ({ result: null, save: refreshed(current) }));
          assert.equal((await store.read(session.key, Date.now()))?.version, session.version + 1);
        },
      );
    });
  });
}

/** `current` after a refresh grant: new tokens, the next version. */
function refreshed(current: BffSession | null): BffSession {
  assert.ok(current, 'the session is there');
  return { ...current, version: current.version + 1, accessToken: 'access-2', refreshToken: 'refresh-2' };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** A pool whose last connection taken can be terminated by the server, as when an instance's network fails. */
interface BreakablePool {
  readonly pool: BffPostgresPool;
  terminateLast(): Promise<void>;
}

function breakable(pool: BffPostgresPool, terminate: (pid: unknown) => Promise<unknown>): BreakablePool {
  let last: unknown = null;
  return {
    pool: {
      query: (text, values) => pool.query(text, values),
      connect: async () => {
        const client = await pool.connect();
        [{ pid: last }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows as { pid: unknown }[];
        return client;
      },
    },
    terminateLast: async () => {
      await terminate(last);
      // The server's notice reaches the client a moment later.
      await sleep(100);
    },
  };
}
