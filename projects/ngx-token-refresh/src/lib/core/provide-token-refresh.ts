import { type EnvironmentProviders, InjectionToken, inject, makeEnvironmentProviders } from '@angular/core';

import { RuntimeError } from '../internal/runtime-error';
import { GATE_PLUGIN } from './gate-plugin';
import { RefreshGate } from './refresh-gate';
import { TOKEN_REFRESH_GATE } from './token-refresh-interceptor';
import { resolveTokenRefreshOptions } from './resolve-token-refresh-options';
import type { TokenRefreshFeature } from './token-refresh-feature';
import type { TokenRefreshOptions } from './token-refresh-options';

/**
 * Registers a token-refresh interceptor with these options and features, for
 * {@link tokenRefreshInterceptor} and {@link injectTokenRefresh}: one refresh for any number of
 * concurrent 401s, the failed requests repeated with the new token, and all of them rejected with the
 * refresh's error when it fails. Everything (lock, queue, token, the `disable()` switch) belongs to
 * the application (the injector) that provides it.
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
 * @param features `withX()` features, e.g. {@link withCrossTabSync} or {@link withProactiveRefresh};
 *   each kind once.
 * @throws in dev mode, when an option is missing or invalid, or a feature is not one; the message
 *   names it.
 */
export function provideTokenRefresh(
  options: TokenRefreshOptions,
  ...features: TokenRefreshFeature[]
): EnvironmentProviders {
  return provideTokenRefreshFrom('provideTokenRefresh', options, features);
}

/**
 * Who registered the interceptor's options in this injector. More than one means one silently
 * overrides the other (e.g. provideAuth, which registers them, plus provideTokenRefresh).
 */
const TOKEN_REFRESH_REGISTRATIONS = new InjectionToken<string[]>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'TOKEN_REFRESH_REGISTRATIONS' : '',
);

/** {@link provideTokenRefresh} on behalf of `caller` (named in the errors). */
export function provideTokenRefreshFrom(
  caller: string,
  options: TokenRefreshOptions,
  features: readonly TokenRefreshFeature[],
): EnvironmentProviders {
  // Validate now, where the stack points at the app's configuration, not at the first request.
  const resolved = resolveTokenRefreshOptions(options, caller);
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidFeatures(caller, features);
  return makeEnvironmentProviders([
    // Only dev mode checks the registrations: production builds need neither the provider nor the name.
    typeof ngDevMode !== 'undefined' && ngDevMode
      ? [{ provide: TOKEN_REFRESH_REGISTRATIONS, multi: true, useValue: caller }]
      : [],
    {
      provide: TOKEN_REFRESH_GATE,
      useFactory: () => {
        if (typeof ngDevMode !== 'undefined' && ngDevMode) {
          const registrations = inject(TOKEN_REFRESH_REGISTRATIONS, { self: true });
          if (registrations.length > 1) {
            throw new RuntimeError(
              'DuplicateProvider',
              `the interceptor's options are registered ${registrations.length} times (${registrations.join(', ')}), and only the last would count; keep one (provideAuth already registers them)`,
            );
          }
        }
        return new RefreshGate(resolved, inject(GATE_PLUGIN, { self: true, optional: true }));
      },
    },
    features.map((feature) => feature.ɵproviders),
  ]);
}

/** Dev mode: every feature is one made by a `withX()` function, and each kind comes once. */
function assertValidFeatures(caller: string, features: readonly TokenRefreshFeature[]): void {
  const kinds = new Set<string>();
  for (const feature of features) {
    const kind = (feature as Partial<TokenRefreshFeature> | null)?.ɵkind;
    if (typeof kind !== 'string' || !Array.isArray(feature.ɵproviders)) {
      throw new RuntimeError(
        'InvalidOptions',
        `${caller} got ${String(feature)} where a feature belongs; features are made by withX() functions such as withCrossTabSync()`,
      );
    }
    if (kinds.has(kind)) {
      throw new RuntimeError('InvalidOptions', `${caller} got the feature ${kind} twice; pass each feature once`);
    }
    kinds.add(kind);
  }
  if (kinds.has('DPoP') && kinds.has('ServerSession')) {
    throw new RuntimeError(
      'InvalidOptions',
      `${caller} got withDPoP() and withServerSession(); a server render has no DPoP key to sign with: render signed-in pages in the browser`,
    );
  }
  if (kinds.has('CrossTabSync') && kinds.has('NoCrossTabSync')) {
    throw new RuntimeError(
      'InvalidOptions',
      `${caller} got both withCrossTabSync() and withNoCrossTabSync(); keep one`,
    );
  }
}
