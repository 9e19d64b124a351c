import { type EnvironmentProviders, InjectionToken, inject, makeEnvironmentProviders } from '@angular/core';

import { type TokenRefreshController, createTokenRefreshController } from './create-token-refresh-interceptor';
import { resolveTokenRefreshOptions } from './resolve-token-refresh-options';
import type { TokenRefreshOptions } from './token-refresh-options';

/** The controller registered by {@link provideTokenRefresh}; one per injector that provides it. */
export const TOKEN_REFRESH_CONTROLLER = new InjectionToken<TokenRefreshController>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'TOKEN_REFRESH_CONTROLLER' : '',
);

/**
 * Registers a token-refresh interceptor with these options, for {@link tokenRefreshInterceptor} and
 * {@link injectTokenRefresh}. Same behaviour as {@link createTokenRefreshInterceptor} (it builds on
 * it), but each application gets its own controller, so `injectTokenRefresh().eject()` affects only
 * that application.
 *
 * @usageNotes
 * ```ts
 * bootstrapApplication(App, {
 *   providers: [
 *     provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
 *     provideTokenRefresh({
 *       refreshApiCall: () =>
 *         inject(HttpClient).post('/auth/refresh', null, { observe: 'response', withCredentials: true }),
 *       extractToken: (response) => (response.body as { accessToken: string }).accessToken,
 *       onRefreshFailure: () => inject(Router).navigate(['/login']),
 *     }),
 *   ],
 * });
 * ```
 *
 * @throws in dev mode, when an option is missing or invalid; the message names the option.
 */
export function provideTokenRefresh(options: TokenRefreshOptions): EnvironmentProviders {
  return provideTokenRefreshFrom('provideTokenRefresh', options);
}

/**
 * Who registered the interceptor's options in this injector. More than one means one silently
 * overrides the other (e.g. provideAuth, which registers them, plus provideTokenRefresh).
 */
const TOKEN_REFRESH_REGISTRATIONS = new InjectionToken<string[]>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'TOKEN_REFRESH_REGISTRATIONS' : '',
);

/** {@link provideTokenRefresh} on behalf of `caller` (named in the error on a double registration). */
export function provideTokenRefreshFrom(caller: string, options: TokenRefreshOptions): EnvironmentProviders {
  // Validate now, where the stack points at the app's configuration, not at the first request.
  const resolved = resolveTokenRefreshOptions(options);
  return makeEnvironmentProviders([
    { provide: TOKEN_REFRESH_REGISTRATIONS, multi: true, useValue: caller },
    {
      provide: TOKEN_REFRESH_CONTROLLER,
      useFactory: () => {
        if (typeof ngDevMode !== 'undefined' && ngDevMode) {
          const registrations = inject(TOKEN_REFRESH_REGISTRATIONS, { self: true });
          if (registrations.length > 1) {
            throw new Error(
              `ngx-token-refresh: the interceptor's options are registered ${registrations.length} times (${registrations.join(', ')}), and only the last would count; keep one (provideAuth already registers them)`,
            );
          }
        }
        return createTokenRefreshController(resolved);
      },
    },
  ]);
}
