/**
 * Why a refresh failed for a reason of the interceptor's own; failures of the refresh request
 * itself reach callers as the very error object `refreshApiCall` produced.
 *
 * - `EmptyToken`: `extractToken` returned an empty string or something that is not a string.
 * - `NoResponse`: the Observable of `refreshApiCall` completed without a value.
 * - `Timeout`: no answer within `refreshTimeout`.
 */
export type TokenRefreshErrorCode = 'EmptyToken' | 'NoResponse' | 'Timeout';

/**
 * The error a refresh fails with when the refresh request itself did not fail but gave no usable
 * token in time. Queued requests are rejected with it and `onRefreshFailure` receives it.
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
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`ngx-token-refresh: ${message}`, options);
  }
}
