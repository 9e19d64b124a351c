/**
 * One signed-in browser session of the backend-for-frontend, as a {@link BffSessionStore} keeps it: who
 * signed in, the tokens the browser never sees, and when the session ends. Times are milliseconds since
 * the epoch (`Date.now()`), durations milliseconds.
 *
 * The session ends `absoluteTimeout` after `createdAt` however busy it is, and `idleTimeout` after
 * `lastSeenAt` when nobody uses it; from then on a store reads it as `null`. The lifetimes travel with
 * the record (as an express-session cookie's `maxAge` does), so that every instance and the database's
 * sweep of expired rows judge a session by the same numbers, whatever each instance was configured with.
 *
 * Stores keep records as JSON: `claims` and the JWKs must be plain JSON values.
 *
 * @usageNotes
 * ```ts
 * const session: BffSession = {
 *   key, // the SHA-256 (base64url) of the session cookie's value, never the value itself
 *   version: 1,
 *   subject: 'user-42',
 *   claims: { sub: 'user-42', name: 'Ada' },
 *   accessToken: tokens.access_token,
 *   accessTokenIssuedAt: now,
 *   accessTokenExpiresAt: now + tokens.expires_in * 1000,
 *   refreshToken: tokens.refresh_token ?? null,
 *   idToken: tokens.id_token ?? null,
 *   tokenType: 'DPoP',
 *   dpopKey: null,
 *   createdAt: now,
 *   lastSeenAt: now,
 *   idleTimeout: 30 * 60_000,
 *   absoluteTimeout: 12 * 3_600_000,
 * };
 * await store.create(session);
 * ```
 */
export interface BffSession {
  /**
   * The store's key: the SHA-256 of the session cookie's value, base64url without padding (43
   * characters). A copy of the store (a database dump, a log) then holds no cookie that signs anyone in.
   */
  readonly key: string;
  /**
   * Goes up by one with every write of the tokens (`BffSessionStore.change`), never with `touch`: a
   * request that sent version `n` and met a 401 can tell whether someone refreshed since (the stored
   * version is above `n`) or it has to refresh itself. A non-negative integer.
   */
  readonly version: number;
  /** The `sub` of the ID token: who signed in. */
  readonly subject: string;
  /** The ID token's claims the app may read about the user (an allow-list of them, not the tokens). */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The access token sent to the APIs. */
  readonly accessToken: string;
  /**
   * When the access token was received. With its expiry, it gives the token's lifetime, which says how
   * early to refresh it (a quarter of the lifetime ahead, at most 30 s).
   */
  readonly accessTokenIssuedAt: number;
  /** When the access token expires, from the token response's `expires_in` at its receipt. */
  readonly accessTokenExpiresAt: number;
  /** The refresh token; `null` when the provider issued none (the session then ends with its access token). */
  readonly refreshToken: string | null;
  /** The ID token, kept for the provider's end-session call (`id_token_hint`); `null` without one. */
  readonly idToken: string | null;
  /** The token response's `token_type`: `'Bearer'`, or `'DPoP'` for sender-constrained tokens. */
  readonly tokenType: string;
  /**
   * The DPoP key pair the tokens are bound to, as JWKs, so that any instance can sign proofs for this
   * session; `null` without DPoP.
   */
  readonly dpopKey: { readonly publicJwk: JsonWebKey; readonly privateJwk: JsonWebKey } | null;
  /** When the session was created: the start of its absolute lifetime. */
  readonly createdAt: number;
  /** When the session was last used (`BffSessionStore.touch`): the start of its idle lifetime. */
  readonly lastSeenAt: number;
  /** How long the session lives without use, from `lastSeenAt`. A positive number. */
  readonly idleTimeout: number;
  /** How long the session lives at most, from `createdAt`. A positive number. */
  readonly absoluteTimeout: number;
}
