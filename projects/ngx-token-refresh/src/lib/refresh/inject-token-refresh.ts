import { InjectionToken, Injector, assertInInjectionContext, inject } from '@angular/core';

import { RuntimeError } from '../errors/runtime-error';
import type { InternalTokenRefreshController, TokenRefreshController } from './create-token-refresh-interceptor';
import { CONTROLLER_GATE } from './create-token-refresh-interceptor';
import { TOKEN_REFRESH_GATE } from './provide-token-refresh';
import type { TokenRefreshState } from './token-refresh-state';

/**
 * The refresh state of this application: whether a refresh is in flight, the current token, the
 * event stream, `refresh()`, `setToken()` and the eject switch. Without `controller` it is the state
 * of the interceptor set up by {@link provideTokenRefresh} (or `provideAuth`); pass the controller
 * from {@link createTokenRefreshInterceptor} to read that one's. Needs an injection context unless
 * `injector` is given.
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
  if (options?.controller) {
    const gate = (options.controller as Partial<InternalTokenRefreshController>)[CONTROLLER_GATE];
    if (!(gate instanceof InjectionToken)) {
      throw new RuntimeError(
        'UnknownController',
        typeof ngDevMode !== 'undefined' &&
          ngDevMode &&
          'injectTokenRefresh got a controller that createTokenRefreshInterceptor did not create',
      );
    }
    return injector.get(gate).state;
  }
  const gate = injector.get(TOKEN_REFRESH_GATE, null);
  if (!gate) {
    throw new RuntimeError(
      'MissingProvider',
      typeof ngDevMode !== 'undefined' &&
        ngDevMode &&
        'injectTokenRefresh found no interceptor (add provideTokenRefresh({...}) or provideAuth(), or pass { controller })',
    );
  }
  return gate.state;
}
