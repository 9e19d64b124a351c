import { HttpContextToken } from '@angular/common/http';

/**
 * Per-request switch, with `withDPoP()`, for a request the interceptor lets by
 * (`SKIP_TOKEN_REFRESH`): when `true`, it still goes with a DPoP proof (no token, no `ath`), and a
 * nonce challenge to it is answered once. For a sign-in call of your own, so that the server binds
 * the new session to this browser's key (`provideAuth`'s login does this itself). Does nothing
 * without `withDPoP()`, nor on a request the interceptor handles (that one is signed anyway when it
 * carries the token). Default: `false`.
 *
 * @usageNotes
 * ```ts
 * http.post('/auth/login', credentials, {
 *   context: new HttpContext().set(SKIP_TOKEN_REFRESH, true).set(DPOP_PROOF, true),
 * });
 * ```
 */
export const DPOP_PROOF = new HttpContextToken<boolean>(() => false);
