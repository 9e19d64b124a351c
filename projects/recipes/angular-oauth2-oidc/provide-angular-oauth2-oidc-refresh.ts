import { HttpErrorResponse, HttpResponse } from '@angular/common/http';
import {
  DestroyRef,
  type EnvironmentProviders,
  inject,
  makeEnvironmentProviders,
  provideEnvironmentInitializer,
} from '@angular/core';
import { OAuthService, type TokenResponse } from 'angular-oauth2-oidc';
import { type TokenRefreshFeature, injectTokenRefresh, provideTokenRefresh } from 'ngx-token-refresh';
import { from, map, throwError } from 'rxjs';

/** Options of {@link provideAngularOAuth2OidcRefresh}. */
export interface AngularOAuth2OidcRefreshOptions {
  /**
   * The origins of your APIs, which get the access token and whose 401s start a refresh (as
   * `provideTokenRefresh`'s `allowedOrigins`). Leave the identity server's origin out: the token would
   * go into angular-oauth2-oidc's own requests there too, and a revocation request carrying it is
   * refused (`invalid_request`). Its `loadUserProfile()` writes the token itself.
   */
  readonly allowedOrigins: readonly (string | RegExp)[];
  /**
   * Called, in the application's injection context, when the identity server refused the refresh
   * token (`invalid_grant` and the other 4xx answers of RFC 6749 §5.2), or there was none: the
   * sign-in is over, and angular-oauth2-oidc's tokens are cleared already (`logOut(true)`). Not called
   * for a server error, 408, 429, no network, a timeout, or a refresh before angular-oauth2-oidc knows
   * its token endpoint: the refresh token stays, and the next 401 tries again. Default: none.
   *
   * @example onSessionExpired: () => inject(OAuthService).initCodeFlow()
   */
  readonly onSessionExpired?: (error: unknown) => void;
}

/**
 * Puts the token-refresh gate of `ngx-token-refresh` in front of angular-oauth2-oidc (21.x, the
 * authorization code flow with refresh tokens): many concurrent 401s make one call of its
 * `refreshToken()`, and the failed requests are repeated with the new token. angular-oauth2-oidc
 * still signs in, sends the refresh grant and keeps every token in its `OAuthStorage`; the gate only
 * decides when to refresh, and writes the access token into the requests to `allowedOrigins`.
 *
 * Register `tokenRefreshInterceptor` in `withInterceptors`, and give angular-oauth2-oidc no
 * `resourceServer.sendAccessToken` (the gate attaches the token), and do not start its
 * `setupAutomaticSilentRefresh()`: its `refreshToken()` calls would run beside the gate's, and with
 * rotation two calls with one refresh token end the sign-in. Use `withProactiveRefresh()` for a
 * refresh ahead of expiry instead.
 *
 * @usageNotes
 * ```ts
 * providers: [
 *   provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
 *   provideOAuthClient(),
 *   provideAngularOAuth2OidcRefresh(
 *     { allowedOrigins: ['https://api.example.com'], onSessionExpired: () => inject(OAuthService).initCodeFlow() },
 *     withCrossTabSync(),
 *     withProactiveRefresh(),
 *   ),
 * ];
 * ```
 */
export function provideAngularOAuth2OidcRefresh(
  options: AngularOAuth2OidcRefreshOptions,
  ...features: TokenRefreshFeature[]
): EnvironmentProviders {
  return makeEnvironmentProviders([
    provideTokenRefresh(
      {
        refreshApiCall: () => {
          const oauth = inject(OAuthService);
          // After a logout or a refused refresh there is nothing to present; angular-oauth2-oidc
          // would send `refresh_token=null`.
          if (!oauth.getRefreshToken()) return throwError(() => new NoRefreshTokenError());
          // refreshToken() reads the refresh token from its storage and sends the grant through
          // HttpClient synchronously, inside this call: the gate lets that request through untouched.
          // With withCrossTabSync() this runs under the cross-tab lock, so a shared storage is read
          // after the previous tab has stored its rotated refresh token.
          return from(oauth.refreshToken()).pipe(map((body) => new HttpResponse({ body, status: 200 })));
        },
        extractToken: (response) => (response.body as TokenResponse).access_token,
        // Access tokens may be opaque: their lifetime is what the server says, for withProactiveRefresh().
        extractExpiresIn: (response) => (response.body as TokenResponse).expires_in,
        allowedOrigins: options.allowedOrigins,
        onRefreshFailure: (error) => {
          if (!endsSession(error)) return;
          // Its tokens are worthless now (a refused refresh token has usually revoked the whole
          // sign-in); logOut(true) clears them without leaving the page, and its `logout` event
          // clears the gate's token (and, with withCrossTabSync(), the other tabs').
          inject(OAuthService).logOut(true);
          options.onSessionExpired?.(error);
        },
      },
      ...features,
    ),
    provideEnvironmentInitializer(() => {
      const oauth = inject(OAuthService);
      const gate = injectTokenRefresh();
      // A session kept in the storage (a reload): its access token, expired or not; a 401 refreshes it.
      const stored = oauth.getAccessToken();
      if (stored) gate.setToken(stored, { restored: true, expiresIn: secondsLeft(oauth) });
      const subscription = oauth.events.subscribe((event) => {
        // A sign-in (or anything else that stored new tokens) hands the access token to the gate. A
        // refresh of the gate's own emits `token_received` too, before the gate has its answer;
        // the gate takes that token from refreshApiCall's result, so it is skipped here.
        if (event.type === 'token_received' && !gate.isRefreshing()) {
          gate.setToken(oauth.getAccessToken(), { expiresIn: secondsLeft(oauth) });
        } else if (event.type === 'logout') {
          gate.setToken(null);
        }
      });
      inject(DestroyRef).onDestroy(() => subscription.unsubscribe());
    }),
  ]);
}

/**
 * The refresh failed for good: the identity server refused the refresh token (a 4xx answer of RFC
 * 6749 §5.2, such as `invalid_grant`), or there is none. Anything else keeps the session: a server
 * error, 408, 429, no network, a timeout, or angular-oauth2-oidc not configured yet (no token endpoint).
 */
function endsSession(error: unknown): boolean {
  if (error instanceof NoRefreshTokenError) return true;
  if (!(error instanceof HttpErrorResponse)) return false;
  return error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

/** How many seconds angular-oauth2-oidc's access token has left, from the `expires_at` it stored. */
function secondsLeft(oauth: OAuthService): number | undefined {
  const expiresAt = oauth.getAccessTokenExpiration();
  return expiresAt ? (expiresAt - Date.now()) / 1000 : undefined;
}

/** angular-oauth2-oidc holds no refresh token (signed out, or its last refresh was refused). */
class NoRefreshTokenError extends Error {
  override readonly name = 'NoRefreshTokenError';

  constructor() {
    super('angular-oauth2-oidc holds no refresh token');
  }
}
