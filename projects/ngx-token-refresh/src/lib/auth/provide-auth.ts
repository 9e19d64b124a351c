import { HttpClient, HttpContext } from '@angular/common/http';
import {
  type EnvironmentProviders,
  inject,
  makeEnvironmentProviders,
  provideEnvironmentInitializer,
} from '@angular/core';

import { parseApiError } from '../errors/parse-api-error';
import { provideTokenRefreshFrom } from '../refresh/provide-token-refresh';
import { SKIP_TOKEN_REFRESH } from '../refresh/skip-token-refresh';
import { AUTH_CONFIG, type AuthConfig, resolveAuthConfig } from './auth-config';
import { AuthSession } from './auth-session';
import { readAccessToken } from './read-access-token';

/**
 * Sets up authentication against this service's `/auth` endpoints in one line: the `AuthClient`, its
 * session (token in memory or `sessionStorage`, restored at start-up), and the token-refresh
 * interceptor wired to it (it attaches the token, refreshes through the client, stores the new
 * token, and on failure clears the session and calls `onSessionExpired`). Add
 * `tokenRefreshInterceptor` to `withInterceptors`.
 *
 * @usageNotes
 * ```ts
 * bootstrapApplication(App, {
 *   providers: [
 *     provideRouter(routes),
 *     provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
 *     provideAuth({ baseUrl: '/auth', loginPath: '/login', onSessionExpired: navigateToLogin }),
 *   ],
 * });
 * ```
 *
 * @throws in dev mode, when `refreshFlow: 'body'` comes without a `refreshTokenStore`, or an option has
 *   the wrong type.
 */
export function provideAuth(config: AuthConfig = {}): EnvironmentProviders {
  const resolved = resolveAuthConfig(config);
  return makeEnvironmentProviders([
    { provide: AUTH_CONFIG, useValue: resolved },
    provideTokenRefreshFrom('provideAuth', {
      ...config.interceptor,
      attachToken: true,
      refreshApiCall: () => requestRefresh(inject(HttpClient), resolved.baseUrl, inject(AuthSession).refreshToken()),
      extractToken: readAccessToken,
      onRefreshSuccess: (_token, response) => inject(AuthSession).renewed(response.body),
      onRefreshFailure: (error) => {
        const session = inject(AuthSession);
        // authGuard's attempt to restore a session that was never there redirects by itself.
        const restoring = session.isRestoring();
        session.clear();
        if (restoring) return;
        resolved.onSessionExpired?.(parseApiError(error));
      },
    }),
    // Restore a stored token before the first request goes out.
    provideEnvironmentInitializer(() => inject(AuthSession).restore()),
  ]);
}

/** `POST {baseUrl}/refresh`, with the cookie (always) and, in the body flow, the stored refresh token. */
function requestRefresh(http: HttpClient, baseUrl: string, refreshToken: string | null) {
  return http.post(`${baseUrl}/refresh`, refreshToken ? { refreshToken } : null, {
    observe: 'response',
    withCredentials: true,
    context: new HttpContext().set(SKIP_TOKEN_REFRESH, true),
  });
}
