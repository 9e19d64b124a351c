import { HttpContextToken } from '@angular/common/http';

/**
 * Per-request switch, with `withDPoP()`, for a request that goes without the token (one marked
 * `SKIP_TOKEN_REFRESH`, or any sent while there is no token): when `true`, it still goes with a DPoP
 * proof (no `ath`), and a nonce challenge to it is answered once. For a sign-in call of your own, so
 * that the server binds the new session to this browser's key (`provideAuth`'s login does this
 * itself). A request that carries the token is signed anyway. Does nothing without `withDPoP()`.
 * Default: `false`.
 *
 * @usageNotes
 * ```ts
 * http.post('/auth/login', credentials, {
 *   context: new HttpContext().set(SKIP_TOKEN_REFRESH, true).set(DPOP_PROOF, true),
 * });
 * ```
 */
export const DPOP_PROOF = new HttpContextToken<boolean>(() => false);
