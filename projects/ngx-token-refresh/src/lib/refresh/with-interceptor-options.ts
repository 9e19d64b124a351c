import { InjectionToken } from '@angular/core';

import { assertValidOptions } from './resolve-token-refresh-options';
import { type TokenRefreshFeature, makeTokenRefreshFeature } from './token-refresh-feature';
import type { TokenRefreshOptions } from './token-refresh-options';

/**
 * The options of the interceptor that say where tokens go and when a refresh happens, as opposed to
 * how to refresh (which `provideAuth` sets itself): for {@link withInterceptorOptions}.
 */
export type InterceptorOptions = Pick<
  TokenRefreshOptions,
  'allowedOrigins' | 'setAuthHeader' | 'statusCodes' | 'maxRetryCount' | 'refreshTimeout'
>;

/** The options given to {@link withInterceptorOptions}, in the injector that provides the interceptor. */
export const INTERCEPTOR_OPTIONS = new InjectionToken<InterceptorOptions>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'INTERCEPTOR_OPTIONS' : '',
);

/**
 * Sets `allowedOrigins`, `setAuthHeader`, `statusCodes`, `maxRetryCount` or `refreshTimeout` of the
 * interceptor as a feature: the way to reach them through `provideAuth`, which sets up the rest of
 * the interceptor itself. With `provideTokenRefresh` the same options can go into its first
 * argument; where both give one, the feature's value counts. Each option's default is the one of
 * {@link TokenRefreshOptions}.
 *
 * @usageNotes
 * ```ts
 * provideAuth(
 *   { baseUrl: '/auth', onSessionExpired: navigateToLogin },
 *   withInterceptorOptions({ allowedOrigins: ['https://api.example.com'], refreshTimeout: 10_000 }),
 * );
 * ```
 *
 * @throws in dev mode, when an option has the wrong type; the message names the option.
 */
export function withInterceptorOptions(options: InterceptorOptions): TokenRefreshFeature<'InterceptorOptions'> {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidOptions(options, 'withInterceptorOptions');
  return makeTokenRefreshFeature('InterceptorOptions', [{ provide: INTERCEPTOR_OPTIONS, useValue: options }]);
}
