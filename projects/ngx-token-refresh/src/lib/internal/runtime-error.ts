/**
 * Stable codes of the errors the library raises when it is set up or called the wrong way. Production
 * builds carry only the code (`ngx-token-refresh: MissingProvider`); dev mode explains the fix.
 *
 * - `MissingProvider`: something needs `provideTokenRefresh`, `provideAuth` or another provider that
 *   this application lacks.
 * - `DuplicateProvider`: the interceptor's options are registered twice in one injector.
 * - `InvalidOptions`: an option of a `provideX` or `withX` function is missing or has the wrong type.
 */
export type RuntimeErrorCode = 'MissingProvider' | 'DuplicateProvider' | 'InvalidOptions';

/**
 * The message of every error the library raises: its explanation in dev mode, its code in production.
 * Call sites pass the explanation as `typeof ngDevMode !== 'undefined' && ngDevMode && '...'`, so that
 * production builds drop the text (the same idea as Angular's `RuntimeError` and `formatRuntimeError`).
 */
export function formatRuntimeError(code: string, explanation: string | false | null | undefined): string {
  return `ngx-token-refresh: ${explanation || code}`;
}

/**
 * Codes of the library's warnings, which only dev mode gives (see `warnRuntime`).
 *
 * - `UnmanagedOrigin`: a 401 came from an origin that may not receive tokens, so no refresh ran.
 * - `TokenNotAttached`: a request went out without the token the interceptor held, and met a 401.
 * - `ShortRefreshTimeout`: `refreshTimeout` looks like seconds, not milliseconds.
 * - `CrossTabSyncNotChosen`: `provideAuth` in the cookie flow got neither `withCrossTabSync()` nor
 *   `withNoCrossTabSync()`.
 * - `ServerSessionWithoutFetch`: `withServerSession()` in a server render whose `HttpClient` does not
 *   use fetch (the XHR backend there can neither send cookies nor read `Set-Cookie`).
 * - `ServerSessionCookiesWithheld`: `withServerSession()` sent a render's refresh without the
 *   request's cookies, because the refresh URL may not carry a token.
 * - `ServerSessionPrerendered`: `withServerSession()` in a server render without a request
 *   (prerendering), which always renders signed out.
 * - `ServerSessionRefreshCookieMissing`: the rendered request has cookies, but none named as
 *   `refreshCookie` says.
 * - `ServerSessionPlainHttpPage`: the page is rendered for a plain `http:` URL on a host that is not
 *   loopback (often a proxy's TLS termination that `@angular/ssr` was not told about), where tokens
 *   never go.
 * - `NoRefreshToken`: `OAuthSession.setTokens()` got a sign-in's token response without a
 *   `refresh_token`, so the session cannot outlive its access token.
 */
export type RuntimeWarningCode =
  | 'UnmanagedOrigin'
  | 'TokenNotAttached'
  | 'ShortRefreshTimeout'
  | 'CrossTabSyncNotChosen'
  | 'ServerSessionWithoutFetch'
  | 'ServerSessionCookiesWithheld'
  | 'ServerSessionPrerendered'
  | 'ServerSessionRefreshCookieMissing'
  | 'ServerSessionPlainHttpPage'
  | 'NoRefreshToken';

/**
 * Logs a warning in the format of the library's errors. Call it behind
 * `typeof ngDevMode !== 'undefined' && ngDevMode`, so that production builds drop the call and its text.
 */
export function warnRuntime(code: RuntimeWarningCode, explanation: string): void {
  console.warn(formatRuntimeError(code, explanation));
}

/**
 * An error for misuse of the library, with a stable `code`. Internal: applications see it as an
 * `Error` whose message names the package.
 */
export class RuntimeError extends Error {
  constructor(
    readonly code: RuntimeErrorCode,
    explanation: string | false | null | undefined,
  ) {
    super(formatRuntimeError(code, explanation));
  }
}
