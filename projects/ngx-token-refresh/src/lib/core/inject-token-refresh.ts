import { Injector, assertInInjectionContext, inject } from '@angular/core';

import { RuntimeError } from '../internal/runtime-error';
import { TOKEN_REFRESH_GATE } from './token-refresh-interceptor';
import type { TokenRefreshRef } from './token-refresh-ref';

/**
 * The handle on this application's token-refresh interceptor, set up by {@link provideTokenRefresh}
 * (or `provideAuth`): whether a refresh is in flight, the current token, the event stream,
 * `refresh()`, `setToken()`, `disable()` and `enable()`. Needs an injection context unless `injector`
 * is given.
 *
 * @usageNotes
 * ```ts
 * export class StatusBar {
 *   protected readonly refreshing = injectTokenRefresh().isRefreshing;
 * }
 * ```
 *
 * @throws when no interceptor is provided in this injector or its parents.
 */
export function injectTokenRefresh(options?: { injector?: Injector }): TokenRefreshRef {
  if (!options?.injector) assertInInjectionContext(injectTokenRefresh);
  const gate = (options?.injector ?? inject(Injector)).get(TOKEN_REFRESH_GATE, null);
  if (!gate) {
    throw new RuntimeError(
      'MissingProvider',
      typeof ngDevMode !== 'undefined' &&
        ngDevMode &&
        'injectTokenRefresh found no interceptor (add provideTokenRefresh({...}) or provideAuth())',
    );
  }
  return gate.ref;
}
