import type { HttpRequest, HttpResponse } from '@angular/common/http';
import type { ObservableInput } from 'rxjs';

/**
 * Configuration of the token-refresh interceptor, passed to {@link provideTokenRefresh}. Only
 * `refreshApiCall` and `extractToken` are required. (`provideAuth`, of `ngx-token-refresh/client`,
 * sets the refresh up itself and takes `allowedOrigins`, `setAuthHeader`, `refreshOnStatus`,
 * `maxRetryCount` and `refreshTimeout` in its own config.)
 *
 * @usageNotes
 * ```ts
 * const options: TokenRefreshOptions = {
 *   refreshApiCall: () =>
 *     inject(HttpClient).post('/auth/refresh', null, { observe: 'response', withCredentials: true }),
 *   extractToken: (response) => (response.body as { accessToken: string }).accessToken,
 * };
 * ```
 */
export interface TokenRefreshOptions {
  /**
   * Performs the refresh request and returns its response as an Observable or a Promise. It runs in
   * the application's injection context, so `inject(HttpClient)` works; requests it sends are never
   * handled by the refresh logic, even when they go through this very interceptor. Only the first
   * value is used. Required.
   *
   * The request must be sent while `refreshApiCall` runs (an Observable subscribed to at once, or an
   * `async` function that starts it before its first `await`). A request started later is not
   * recognised as the refresh request; mark it with `SKIP_TOKEN_REFRESH` in that case.
   *
   * @example () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response', withCredentials: true })
   */
  readonly refreshApiCall: () => ObservableInput<HttpResponse<unknown>>;

  /**
   * Reads the new access token from the refresh response. Throwing, or returning anything but a
   * non-empty string, fails the refresh. Required.
   *
   * @example (response) => (response.body as { accessToken: string }).accessToken
   */
  readonly extractToken: (response: HttpResponse<unknown>) => string;

  /**
   * Reads how many seconds the new token lives from the refresh response (OAuth's `expires_in`).
   * `withProactiveRefresh` uses it for a token whose expiry it cannot read (an opaque token, or a JWT
   * without `exp`); with `withCrossTabSync` the expiry travels with the token to the other tabs. It
   * counts from when the refresh request left, and a second early (servers count whole seconds), on
   * this device's clock. Anything but a positive finite number means "unknown", and never fails the
   * refresh. Default: none.
   *
   * @example (response) => (response.body as { expires_in?: number }).expires_in
   */
  readonly extractExpiresIn?: (response: HttpResponse<unknown>) => number | null | undefined;

  /**
   * Writes the token into a (cloned) request. Called only for requests whose URL is allowed to carry
   * the token (see `allowedOrigins`).
   *
   * Default: sets `Authorization: Bearer <token>`.
   *
   * @example (request, token) => request.clone({ setHeaders: { 'X-Access-Token': token } })
   */
  readonly setAuthHeader?: (request: HttpRequest<unknown>, token: string) => HttpRequest<unknown>;

  /**
   * Response statuses that trigger a refresh. Default: `[401]`.
   */
  readonly refreshOnStatus?: readonly number[];

  /**
   * How many times one request may be repeated after a refresh. Past that, the request's own latest
   * error reaches its caller. `0` turns refreshing off. Default: `1`.
   */
  readonly maxRetryCount?: number;

  /**
   * Called once per successful refresh, before the queued requests are repeated (so a token stored
   * here is already in place for them). A `setToken` here decides what they repeat with: its token,
   * or, after `setToken(null)`, nothing (they get their own 401). Runs in the application's
   * injection context. Default: none.
   *
   * @example (token) => inject(SessionStore).setAccessToken(token)
   */
  readonly onRefreshSuccess?: (token: string, response: HttpResponse<unknown>) => void;

  /**
   * Called once per failed refresh, before the queued requests are rejected with the same error,
   * e.g. to clear the session and navigate to the login page. Runs in the application's injection
   * context. Default: none.
   *
   * @example () => inject(Router).navigate(['/login'])
   */
  readonly onRefreshFailure?: (error: unknown) => void;

  /**
   * Milliseconds a refresh may take before it fails with a `TokenRefreshError` of code `Timeout`
   * (1 to 2147483647, the most `setTimeout` can hold). `Infinity` waits forever. Default: `30000`.
   */
  readonly refreshTimeout?: number;

  /**
   * Attach the current token (the one set with `injectTokenRefresh().setToken(token)` after login, or
   * the last one refreshed) to every outgoing request whose URL is allowed to carry it (see
   * `allowedOrigins`). Until a token is known, requests go out without one. Set it to `false` only
   * when another interceptor attaches your token; keep that one's token in step with
   * `onRefreshSuccess`, or every request meets a 401 first. Default: `true`.
   */
  readonly attachToken?: boolean;

  /**
   * Origins, besides the application's own, whose requests the interceptor manages: only these get a
   * token written into them, and only their failures trigger a refresh. Strings are exact origins
   * (`'https://api.example.com'`), regular expressions are tested against the origin and must be
   * anchored (`/^https:\/\/[a-z]+\.example\.com$/`). A token is never written to plain `http:` except
   * on localhost, so listing an `http:` origin elsewhere is an error. Default: `[]` (the application's
   * own origin and relative URLs only).
   */
  readonly allowedOrigins?: readonly (string | RegExp)[];
}
