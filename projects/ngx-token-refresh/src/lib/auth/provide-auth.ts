import { HttpClient } from '@angular/common/http';
import {
  type EnvironmentProviders,
  inject,
  makeEnvironmentProviders,
  provideEnvironmentInitializer,
} from '@angular/core';

import { provideTokenRefreshFrom } from '../refresh/provide-token-refresh';
import type { TokenRefreshFeature } from '../refresh/token-refresh-feature';
import { withCrossTabSync } from '../refresh/with-cross-tab-sync';
import { AuthClient } from './auth-client';
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
 * `tokenRefreshInterceptor` to `withInterceptors`. `features` are the interceptor's, as for
 * `provideTokenRefresh`: `withInterceptorOptions({ allowedOrigins, ... })` for an API on another
 * origin, a custom header, other statuses or another timeout.
 *
 * @usageNotes
 * ```ts
 * import { navigateToLogin } from 'ngx-token-refresh/router';
 *
 * bootstrapApplication(App, {
 *   providers: [
 *     provideRouter(routes),
 *     provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
 *     provideAuth({ baseUrl: '/auth', loginPath: '/login', onSessionExpired: navigateToLogin }),
 *   ],
 * });
 *
 * // an API on another origin:
 * provideAuth({ onSessionExpired: navigateToLogin }, withInterceptorOptions({ allowedOrigins: ['https://api.example.com'] }));
 * ```
 *
 * @throws in dev mode, when `refreshFlow: 'body'` comes without a `refreshTokenStore`, or an option has
 *   the wrong type.
 */
export function provideAuth(config: AuthConfig = {}, ...features: TokenRefreshFeature[]): EnvironmentProviders {
  const resolved = resolveAuthConfig(config);
  // The cookie flow gets cross-tab sync unless the app chose: every tab sends the same HttpOnly
  // cookie, so tabs refreshing at once would present one refresh token twice. In the body flow the
  // refresh token lives in the app's store, and only the app knows whether tabs share it.
  const chosen = features.some((feature) => feature?.ɵkind === 'CrossTabSync' || feature?.ɵkind === 'NoCrossTabSync');
  const allFeatures = chosen || resolved.refreshFlow !== 'cookie' ? features : [...features, withCrossTabSync()];
  return makeEnvironmentProviders([
    { provide: AUTH_CONFIG, useValue: resolved },
    provideTokenRefreshFrom(
      'provideAuth',
      {
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
        onRefreshFailure: (error) => inject(AuthClient).ɵrefreshFailed(error),
      },
      allFeatures,
    ),
    // Restore a stored token before the first request goes out.
    provideEnvironmentInitializer(() => inject(AuthSession).restoreStored()),
  ]);
}
