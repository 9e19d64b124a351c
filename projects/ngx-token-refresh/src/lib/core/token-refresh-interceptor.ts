import type { HttpInterceptorFn } from '@angular/common/http';
import { InjectionToken, inject } from '@angular/core';

import { RuntimeError } from '../internal/runtime-error';
import type { RefreshGate } from './refresh-gate';

/** The gate of the interceptor registered by `provideTokenRefresh` in this injector. */
export const TOKEN_REFRESH_GATE = new InjectionToken<RefreshGate>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'TOKEN_REFRESH_GATE' : '',
);

/** Made once: `inject` runs for every request. */
const OPTIONAL = { optional: true } as const;

/**
 * The interceptor configured by {@link provideTokenRefresh} (or `provideAuth`). Order in
 * `withInterceptors`: URL rewriters (a base-URL prefixer) before it, since it judges by the URL it
 * receives where a token may go; logging after it, since it repeats requests with `next()` and only
 * the interceptors after it see the repeats. Nothing after it may change the URL or replace
 * `HttpErrorResponse`s.
 *
 * @usageNotes
 * ```ts
 * provideHttpClient(withInterceptors([baseUrlInterceptor, tokenRefreshInterceptor, loggingInterceptor]));
 * ```
 */
export const tokenRefreshInterceptor: HttpInterceptorFn = (request, next) => {
  const gate = inject(TOKEN_REFRESH_GATE, OPTIONAL);
  if (!gate) {
    throw new RuntimeError(
      'MissingProvider',
      typeof ngDevMode !== 'undefined' &&
        ngDevMode &&
        'tokenRefreshInterceptor has no options (add provideTokenRefresh({...}) or provideAuth() to the providers of the injector that provides HttpClient)',
    );
  }
  return gate.intercept(request, next);
};
