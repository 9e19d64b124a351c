import type { HttpInterceptorFn } from '@angular/common/http';
import { inject } from '@angular/core';

import { RuntimeError } from '../internal/runtime-error';
import { TOKEN_REFRESH_GATE } from './refresh-gate';

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
  const gate = inject(TOKEN_REFRESH_GATE, { optional: true });
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
