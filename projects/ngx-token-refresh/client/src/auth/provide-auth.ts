import { HttpClient } from '@angular/common/http';
import {
  type EnvironmentProviders,
  inject,
  makeEnvironmentProviders,
  provideEnvironmentInitializer,
} from '@angular/core';

import {
  type TokenRefreshFeature,
  ɵRuntimeError as RuntimeError,
  ɵprovideTokenRefreshPreset as provideTokenRefreshPreset,
  ɵwarnRuntime as warnRuntime,
} from 'ngx-token-refresh';

import { AUTH_CONFIG, type AuthConfig, resolveAuthConfig } from './auth-config';
import { AuthSession } from './auth-session';
import { postAuthRequest } from './post-auth-request';
import { readAccessToken } from './read-access-token';

/**
 * Sets up authentication against this service's `/auth` endpoints in one line: the `AuthClient`, its
 * session (token in memory or `sessionStorage`, restored at start-up), and the token-refresh
 * interceptor wired to it (it attaches the token, refreshes through the client, stores the new
 * token, and when the server refuses a refresh clears the session and calls `onSessionExpired`; a
 * refresh the server could not answer, such as no network or a 503, keeps the session). Add
 * `tokenRefreshInterceptor` to `withInterceptors`. The interceptor's own options (`allowedOrigins`
 * for an API on another origin, `setAuthHeader`, `refreshOnStatus`, `maxRetryCount`,
 * `refreshTimeout`) go into `config`; `features` are the interceptor's, as for `provideTokenRefresh`.
 *
 * In the cookie flow every tab sends the same refresh cookie, so tabs refreshing at once present one
 * refresh token twice: pass `withCrossTabSync()` to make them take turns and share the new token, or
 * `withNoCrossTabSync()` when the server tolerates it (dev mode warns when neither is given). A
 * feature not passed costs the application nothing.
 *
 * @usageNotes
 * ```ts
 * import { navigateToLogin } from 'ngx-token-refresh/router';
 *
 * bootstrapApplication(App, {
 *   providers: [
 *     provideRouter(routes),
 *     provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
 *     provideAuth({ baseUrl: '/auth', loginPath: '/login', onSessionExpired: navigateToLogin }, withCrossTabSync()),
 *   ],
 * });
 *
 * // an API on another origin:
 * provideAuth({ onSessionExpired: navigateToLogin, allowedOrigins: ['https://api.example.com'] }, withCrossTabSync());
 * ```
 *
 * @throws in dev mode, when `refreshFlow: 'body'` comes without a `refreshTokenStore`, or an option has
 *   the wrong type, or `withServerSession()` comes with `refreshFlow: 'body'`.
 */
export function provideAuth(config: AuthConfig = {}, ...features: TokenRefreshFeature[]): EnvironmentProviders {
  const resolved = resolveAuthConfig(config);
  // In the body flow a render would find no session, and silently. Dev mode only, like the other
  // checks of the configuration, so that production builds carry no feature's name.
  if (
    typeof ngDevMode !== 'undefined' &&
    ngDevMode &&
    resolved.refreshFlow === 'body' &&
    features.some((feature) => feature?.ɵkind === 'ServerSession')
  ) {
    throw new RuntimeError(
      'InvalidOptions',
      "provideAuth got withServerSession() with refreshFlow: 'body'; a server render only sees the request's cookies, never the refresh token the browser keeps in the body flow: use the cookie flow to render signed-in pages on the server",
    );
  }
  // The feature is the app's to pass, so that an app without it ships none of its code. In the body
  // flow the refresh token lives in the app's store, and only the app knows whether tabs share it.
  if (
    typeof ngDevMode !== 'undefined' &&
    ngDevMode &&
    resolved.refreshFlow === 'cookie' &&
    !features.some((feature) => feature?.ɵkind === 'CrossTabSync' || feature?.ɵkind === 'NoCrossTabSync')
  ) {
    warnRuntime(
      'CrossTabSyncNotChosen',
      'provideAuth uses the refresh cookie, which every tab sends: add withCrossTabSync() so that tabs take turns to refresh, or withNoCrossTabSync() if your server accepts one refresh token twice',
    );
  }
  return makeEnvironmentProviders([
    { provide: AUTH_CONFIG, useValue: resolved },
    provideTokenRefreshPreset(
      {
        caller: 'provideAuth',
        // withIdleTimeout(): the tab whose deadline passed first tells the server, unless the app said otherwise.
        idleSignOut: (token) => void inject(AuthSession).signOutOnServer(token),
      },
      {
        allowedOrigins: config.allowedOrigins,
        setAuthHeader: config.setAuthHeader,
        refreshOnStatus: config.refreshOnStatus,
        maxRetryCount: config.maxRetryCount,
        refreshTimeout: config.refreshTimeout,
        attachToken: true,
        // POST {baseUrl}/refresh, with the cookie (always) and, in the body flow, the stored refresh token.
        refreshApiCall: () => {
          const refreshToken = inject(AuthSession).refreshToken();
          return postAuthRequest(
            inject(HttpClient),
            `${resolved.baseUrl}/refresh`,
            refreshToken ? { refreshToken } : null,
          );
        },
        extractToken: readAccessToken,
        onRefreshSuccess: (_token, response) => inject(AuthSession).renewed(response.body),
        onRefreshFailure: (error) => inject(AuthSession).refreshFailed(error),
      },
      features,
    ),
    // Restore a stored token before the first request goes out.
    provideEnvironmentInitializer(() => inject(AuthSession).restoreStored()),
  ]);
}
