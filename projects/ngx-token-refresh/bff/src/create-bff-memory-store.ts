import { assertBffSession } from './assert-bff-session';
import { assertSessionChange } from './assert-session-change';
import { assertTime } from './assert-time';
import { BffError } from './bff-error';
import type { BffSession } from './bff-session';
import type { BffSessionStore } from './bff-session-store';
import { sessionEndsAt } from './session-ends-at';
import { assertSessionKey } from './session-key';

/** How often, at most, a sign-in also drops the sessions past their lifetimes. */
const SWEEP_INTERVAL = 60_000;

/**
 * A {@link BffSessionStore} in this process's memory: for one instance of the backend-for-frontend (its
 * sessions are gone when the process ends, and another instance cannot see them; use
 * `createBffPostgresStore` behind a load balancer). Changes of one session run one at a time, in the
 * order they were asked for; a sign-in drops the sessions past their lifetimes, at most once a minute.
 *
 * Records are kept as JSON text, as a database keeps them: what comes out is a copy, and a record that
 * would not survive a database (a claim that is a `Date`, say) is refused here too, not only in production.
 *
 * @usageNotes
 * ```ts
 * const store = createBffMemoryStore();
 * ```
 */
export function createBffMemoryStore(): BffSessionStore {
  const records = new Map<string, string>();
  /** The end of each session's line of writes, while it has one. */
  const lines = new Map<string, Promise<unknown>>();
  let nextSweep = 0;

  /** Runs `write` after the writes of `key` asked for before it, so each one sees the last one's result. */
  const inLine = <T>(key: string, write: () => T | Promise<T>): Promise<T> => {
    const turn = (lines.get(key) ?? Promise.resolve()).then(write);
    const settled = turn.then(ignore, ignore);
    lines.set(key, settled);
    void settled.then(() => lines.get(key) === settled && lines.delete(key));
    return turn;
  };
  const live = (key: string, now: number): BffSession | null => {
    const text = records.get(key);
    const session = text === undefined ? null : (JSON.parse(text) as BffSession);
    return session !== null && now < sessionEndsAt(session) ? session : null;
  };
  const sweep = (now: number) => {
    if (now < nextSweep) return;
    nextSweep = now + SWEEP_INTERVAL;
    for (const key of records.keys()) {
      if (live(key, now) === null) records.delete(key);
    }
  };

  return {
    read: async (key, now) => {
      assertSessionKey(key, 'store.read');
      assertTime(now, 'store.read');
      return live(key, now);
    },
    create: async (session) => {
      assertBffSession(session, 'store.create');
      await inLine(session.key, () => {
        if (records.has(session.key)) {
          throw new BffError('InvalidSession', 'store.create got a key that exists already (make a new session id)');
        }
        records.set(session.key, JSON.stringify(session));
        sweep(Date.now());
      });
    },
    touch: async (key, lastSeenAt) => {
      assertSessionKey(key, 'store.touch');
      assertTime(lastSeenAt, 'store.touch');
      await inLine(key, () => {
        const session = live(key, lastSeenAt);
        // Only the time: writing back a whole record here could put back a refresh token that a change
        // rotated away since the caller read it.
        if (session !== null && session.lastSeenAt < lastSeenAt) {
          records.set(key, JSON.stringify({ ...session, lastSeenAt }));
        }
      });
    },
    delete: async (key) => {
      assertSessionKey(key, 'store.delete');
      await inLine(key, () => records.delete(key));
    },
    change: async (key, change) => {
      assertSessionKey(key, 'store.change');
      return inLine(key, async () => {
        const current = live(key, Date.now());
        const outcome = await change(current);
        assertSessionChange(outcome, key, current);
        // A session swept while `change` ran stays gone, as an UPDATE finds no row a DELETE took.
        if (outcome.save !== undefined && records.has(key)) records.set(key, JSON.stringify(outcome.save));
        if (outcome.delete) records.delete(key);
        return outcome.result;
      });
    },
  };
}

function ignore(): void {
  // The next write in line runs whether this one succeeded or not.
}
