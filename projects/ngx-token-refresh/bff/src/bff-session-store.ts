import type { BffSession } from './bff-session';

/**
 * What the function given to {@link BffSessionStore.change} returns: the value `change` resolves with,
 * and at most one write, made before any other change of that session may start.
 *
 * - `save`: the new record; its `key` must be the changed one and its `version` the current one plus one.
 * - `delete: true`: the session is removed.
 * - neither: nothing is written (someone else refreshed already, say).
 */
export interface BffSessionChange<T> {
  /** What `change` resolves with. */
  readonly result: T;
  /** The record to write instead of the current one. */
  readonly save?: BffSession;
  /** Removes the session. */
  readonly delete?: true;
}

/**
 * Where the backend-for-frontend keeps its sessions: `createBffMemoryStore()` for one instance,
 * `createBffPostgresStore({ pool })` for several behind one database, or your own object of this shape.
 *
 * Its promise that matters: `change` runs one function at a time per session, across every instance
 * that shares the store, and hands each the record as the previous one left it. That is how one refresh
 * grant serves a burst of requests, and how a refresh token that rotated is never presented again (under
 * strict rotation, presenting it again ends the grant: RFC 9700, section 4.14.2).
 *
 * Every method is asynchronous and rejects with a {@link BffError} for the store's own failures
 * (`StoreUnavailable`, `LockTimeout`, `InvalidSession`). Records go in and come out as copies: changing a
 * record you hold changes nothing stored.
 *
 * @usageNotes
 * ```ts
 * const session = await store.read(key, Date.now());
 * if (session === null) return signedOut();
 * const fresh = await store.change(key, async (current) => {
 *   if (current === null) return { result: null, delete: true };
 *   if (current.version > session.version) return { result: current }; // refreshed meanwhile
 *   const tokens = await refreshGrant(current.refreshToken);
 *   const next = { ...current, ...tokens, version: current.version + 1 };
 *   return { result: next, save: next };
 * });
 * ```
 */
export interface BffSessionStore {
  /**
   * The session of `key` at time `now` (milliseconds since the epoch); `null` when there is none, or
   * when it is past either lifetime: `now >= createdAt + absoluteTimeout` or
   * `now >= lastSeenAt + idleTimeout`. Waits for no change in progress: it reads the last one written.
   */
  read(key: string, now: number): Promise<BffSession | null>;
  /**
   * Stores a new session (a sign-in). Rejects with `InvalidSession` when the record is not a
   * {@link BffSession} or its key exists already.
   */
  create(session: BffSession): Promise<void>;
  /**
   * Records that the session was used at `lastSeenAt`, which restarts its idle lifetime. It writes that
   * time and nothing else: never the tokens, never the version, so an instance holding an old copy of the
   * record cannot put back a refresh token that another instance has rotated away. It never moves
   * `lastSeenAt` back, and never brings back a session past its lifetimes (nothing happens then).
   * Waits for a change of the same session in progress.
   */
  touch(key: string, lastSeenAt: number): Promise<void>;
  /** Removes the session, if there is one. Waits for a change of the same session in progress. */
  delete(key: string): Promise<void>;
  /**
   * Runs `change` with the session of `key` as it is now (`null` when there is none or it is past its
   * lifetimes at `Date.now()`), then writes what it returns, if anything, and resolves with its `result`.
   * Changes of one session run one after the other, on every instance sharing the store, each seeing the
   * previous one's write; changes of different sessions do not wait for each other. When `change` throws,
   * nothing is written and `change`'s error rejects as it is.
   */
  change<T>(
    key: string,
    change: (current: BffSession | null) => BffSessionChange<T> | Promise<BffSessionChange<T>>,
  ): Promise<T>;
}
