import type { EnvironmentProviders, Provider } from '@angular/core';

/**
 * The kinds of {@link TokenRefreshFeature}. Each kind may be given once to one provider call.
 */
export type TokenRefreshFeatureKind =
  'CrossTabSync' | 'NoCrossTabSync' | 'ProactiveRefresh' | 'ServerSession' | 'DPoP' | 'IdleTimeout';

/**
 * A feature of the token-refresh interceptor, made by a `withX()` function and passed to
 * `provideTokenRefresh(options, ...features)` or `provideAuth(config, ...features)`. Opaque: its
 * fields are the library's own. A feature an application does not pass costs it nothing.
 *
 * @usageNotes
 * ```ts
 * provideAuth({ onSessionExpired: navigateToLogin }, withCrossTabSync(), withProactiveRefresh());
 * ```
 */
export interface TokenRefreshFeature<KindT extends TokenRefreshFeatureKind = TokenRefreshFeatureKind> {
  readonly ɵkind: KindT;
  readonly ɵproviders: (Provider | EnvironmentProviders)[];
}

/** Builds a feature (the shape of Angular's `HttpFeature`). */
export function makeTokenRefreshFeature<KindT extends TokenRefreshFeatureKind>(
  kind: KindT,
  providers: (Provider | EnvironmentProviders)[],
): TokenRefreshFeature<KindT> {
  return { ɵkind: kind, ɵproviders: providers };
}
