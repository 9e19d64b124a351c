import type { HttpInterceptorFn } from '@angular/common/http';
import { inject } from '@angular/core';

import { TOKEN_REFRESH_CONTROLLER } from './provide-token-refresh';

/**
 * The interceptor configured by {@link provideTokenRefresh}. Order in `withInterceptors`: URL
 * rewriters (a base-URL prefixer) before it, since it judges by the URL it receives where a token
 * may go; logging after it, since it repeats requests with `next()` and only the interceptors after
 * it see the repeats. Nothing after it may change the URL or replace `HttpErrorResponse`s.
 *
 * @usageNotes
 * ```ts
 * provideHttpClient(withInterceptors([baseUrlInterceptor, tokenRefreshInterceptor, loggingInterceptor]));
 * ```
 */
export const tokenRefreshInterceptor: HttpInterceptorFn = (request, next) => {
  const controller = inject(TOKEN_REFRESH_CONTROLLER, { optional: true });
  if (!controller) {
    throw new Error(
      'ngx-token-refresh: tokenRefreshInterceptor has no options (add provideTokenRefresh({...}) to the providers of the injector that provides HttpClient)',
    );
  }
  return controller.interceptor(request, next);
};
