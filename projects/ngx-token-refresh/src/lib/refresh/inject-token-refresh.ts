import { Injector, assertInInjectionContext, inject, runInInjectionContext } from '@angular/core';

import {
  CONTROLLER_GATE,
  type InternalTokenRefreshController,
  type TokenRefreshController,
} from './create-token-refresh-interceptor';
import { TOKEN_REFRESH_CONTROLLER } from './provide-token-refresh';
import type { TokenRefreshState } from './token-refresh-state';

/**
 * The refresh state of this application: whether a refresh is in flight, the current token, the
 * event stream, and the eject switch. Without `controller` it is the state of the interceptor set up
 * by {@link provideTokenRefresh}; pass the controller from {@link createTokenRefreshInterceptor}
 * to read that one's. Needs an injection context unless `injector` is given.
 *
 * @usageNotes
 * ```ts
 * export class StatusBar {
 *   protected readonly refreshing = injectTokenRefresh().isRefreshing;
 * }
 * ```
 */
export function injectTokenRefresh(options?: {
  controller?: TokenRefreshController;
  injector?: Injector;
}): TokenRefreshState {
  if (!options?.injector) assertInInjectionContext(injectTokenRefresh);
  const injector = options?.injector ?? inject(Injector);
  return runInInjectionContext(injector, () => {
    const controller = (options?.controller ??
      inject(TOKEN_REFRESH_CONTROLLER, { optional: true })) as InternalTokenRefreshController | null;
    if (typeof controller?.[CONTROLLER_GATE] !== 'function') {
      throw new Error(
        options?.controller
          ? 'ngx-token-refresh: injectTokenRefresh got a controller that createTokenRefreshInterceptor did not create'
          : 'ngx-token-refresh: injectTokenRefresh found no interceptor (add provideTokenRefresh({...}), or pass { controller })',
      );
    }
    return controller[CONTROLLER_GATE]();
  });
}
