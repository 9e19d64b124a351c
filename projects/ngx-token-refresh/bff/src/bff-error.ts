/**
 * Stable reasons of the errors `ngx-token-refresh/bff` throws.
 *
 * - `InvalidOptions`: a factory (`createBffPostgresStore`, ...) got a missing option or one of the wrong
 *   type; thrown when it is called, before anything runs.
 * - `InvalidSession`: a session store was handed something it must refuse: a record that is not a
 *   {@link BffSession}, a `create` of a key that exists, or a `change` that saves a record of another
 *   key, of a version other than the stored one plus one, or of a session that is not there.
 * - `StoreUnavailable`: the database behind a session store failed (no connection, a statement refused
 *   or cut off); the cause is the driver's error. Nothing was written that the caller did not see.
 * - `LockTimeout`: a `change` waited longer than the store's `lockTimeout` for another change of the
 *   same session (on any instance) to end. Nothing was written.
 */
export type BffErrorCode = 'InvalidOptions' | 'InvalidSession' | 'StoreUnavailable' | 'LockTimeout';

/**
 * The error `ngx-token-refresh/bff` throws for its own reasons; branch on `code`. The message names the
 * package, what happened and, for a mistake in the code that calls it, the fix:
 * `ngx-token-refresh/bff: createBffPostgresStore needs { pool } (a pg.Pool or an object with its query and connect)`.
 * Errors of your own callbacks (the function given to `BffSessionStore.change`) pass through as they are.
 *
 * @usageNotes
 * ```ts
 * try {
 *   await store.change(key, refreshTokens);
 * } catch (error) {
 *   if (error instanceof BffError && error.code === 'LockTimeout') {
 *     return new Response(null, { status: 503, headers: { 'retry-after': '1' } });
 *   }
 *   throw error;
 * }
 * ```
 */
export class BffError extends Error {
  /** `'BffError'`, as `error.name` shows it in logs. */
  override readonly name = 'BffError';

  constructor(
    /** Stable reason of the error (see {@link BffErrorCode}). */
    readonly code: BffErrorCode,
    /** What happened, for people; the constructor puts `ngx-token-refresh/bff: ` before it. */
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`ngx-token-refresh/bff: ${message}`, options);
  }
}
