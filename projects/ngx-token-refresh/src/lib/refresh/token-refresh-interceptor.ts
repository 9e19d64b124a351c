import type { HttpInterceptorFn } from '@angular/common/http';
import { inject } from '@angular/core';

import { TOKEN_REFRESH_CONTROLLER } from './provide-token-refresh';

/**
 * The interceptor configured by {@link provideTokenRefresh}. Put it first in `withInterceptors`, so
 * the interceptors after it (and the backend) see the repeated requests.
 *
 * @usageNotes
 * ```ts
 * provideHttpClient(withInterceptors([tokenRefreshInterceptor, loggingInterceptor]));
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
