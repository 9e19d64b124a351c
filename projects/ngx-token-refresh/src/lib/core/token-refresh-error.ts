import { formatRuntimeError } from '../internal/runtime-error';

/**
 * Why a refresh failed for a reason of the interceptor's own; failures of the refresh request
 * itself reach callers as the very error object `refreshApiCall` produced.
 *
 * - `InvalidToken`: `extractToken` returned an empty string, something that is not a string, or a
 *   string with spaces or control characters (such as `'Bearer abc'`).
 * - `NoResponse`: the Observable of `refreshApiCall` completed without a value.
 * - `Timeout`: no answer within `refreshTimeout`.
 * - `Destroyed`: the application was destroyed while the refresh was in flight.
 * - `Cancelled`: `setToken(null)` (a logout) ended the refresh; only callers of
 *   `TokenRefreshRef.refresh()` see it (failed requests get their own 401 back).
 * - `NoSession`: with `withServerSession()`, a server render without a request (prerendering) was
 *   asked to refresh; there is no session to refresh with, and nothing was sent.
 * - `NoKey`: with `withDPoP()`, a request or a refresh needed a proof and there is no key to sign it:
 *   on the server, or in a browser without WebCrypto (an insecure context). Nothing was sent.
 * - `IdleTimeout`: with `withIdleTimeout()`, the session ended for idleness; no refresh is sent before
 *   a new sign-in, so a 401 then cannot bring the session back.
 */
export type TokenRefreshErrorCode =
  'InvalidToken' | 'NoResponse' | 'Timeout' | 'Destroyed' | 'Cancelled' | 'NoSession' | 'NoKey' | 'IdleTimeout';

/**
 * The error a refresh fails with when the refresh request itself did not fail but gave no usable
 * token in time, or could not finish. Queued requests are rejected with it and `onRefreshFailure` receives it.
 * Branch on `code`: in production builds the message is only the code (`ngx-token-refresh: Timeout`),
 * dev mode explains it (`ngx-token-refresh: the refresh took longer than 30000 ms`).
 *
 * @usageNotes
 * ```ts
 * onRefreshFailure: (error) => {
 *   if (error instanceof TokenRefreshError && error.code === 'Timeout') { ... }
 * }
 * ```
 */
export class TokenRefreshError extends Error {
  override readonly name = 'TokenRefreshError';

  constructor(
    /** Stable reason of the failure. */
    readonly code: TokenRefreshErrorCode,
    /**
     * What happened, for people; without it the message is the code. The library passes it in dev
     * mode only (bytes in production).
     */
    message?: string | false | null,
    options?: { cause?: unknown },
  ) {
    super(formatRuntimeError(code, message), options);
  }
}
