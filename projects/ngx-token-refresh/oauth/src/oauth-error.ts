/**
 * Why an OAuth 2.0 session ended: the token endpoint refused the refresh, answered with something that
 * is not a token response, or there was no refresh token to send. A refresh that fails for a passing
 * reason (no network, a timeout, 408, 429, a 5xx, even with an OAuth error body) keeps the session and
 * fails with the original error (an `HttpErrorResponse` or a `TokenRefreshError`) instead, so
 * `instanceof OAuthError` reads as "the session is over".
 *
 * `error` is the code of RFC 6749 §5.2 as the server sent it (`invalid_grant`: the refresh token is
 * expired, revoked or was used already; `invalid_client`, `unauthorized_client`, `invalid_scope`,
 * `invalid_request`, `unsupported_grant_type`: the configuration does not match the server), or one of
 * this library's own:
 * - `invalid_response`: a success without a usable `access_token`, a body that is not JSON (an HTML
 *   page), a `token_type` other than `Bearer` (`DPoP` with `withDPoP()`), or an error status without an
 *   OAuth error body;
 * - `no_refresh_token`: the store held no refresh token to send;
 * - `insecure_endpoint`: the endpoint is neither `https:` nor `http:` on a loopback host (a relative
 *   URL on a page served over plain `http:`); nothing was sent;
 * - `signed_out_elsewhere`: another tab signed out (with `withCrossTabSync()`).
 *
 * @usageNotes
 * ```ts
 * provideOAuthRefresh({
 *   tokenEndpoint: 'https://id.example.com/oauth/token',
 *   clientId: 'spa',
 *   onSessionExpired: (error: OAuthError) => console.info('signed out:', error.error, error.description),
 * });
 * ```
 */
export class OAuthError extends Error {
  /** `'OAuthError'`, as `error.name` shows it in logs. */
  override readonly name = 'OAuthError';

  constructor(
    /** The OAuth error code (see the class comment). */
    readonly error: string,
    /** The HTTP status of the answer; `0` when there was none. */
    readonly status: number,
    /** The server's `error_description`, or this library's explanation; may be empty. */
    readonly description = '',
    options?: { readonly cause?: unknown },
  ) {
    super(description ? `${error}: ${description}` : error, options);
  }
}
