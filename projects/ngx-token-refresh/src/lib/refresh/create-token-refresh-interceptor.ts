import type { HttpInterceptorFn } from '@angular/common/http';
import { InjectionToken, inject } from '@angular/core';

import { type EjectSwitch, RefreshGate } from './refresh-gate';
import { resolveTokenRefreshOptions } from './resolve-token-refresh-options';
import type { TokenRefreshOptions } from './token-refresh-options';

/**
 * A token-refresh interceptor and its off switch, as returned by {@link createTokenRefreshInterceptor}.
 */
export interface TokenRefreshController {
  /** The interceptor, for `provideHttpClient(withInterceptors([controller.interceptor]))`. */
  readonly interceptor: HttpInterceptorFn;

  /**
   * Turns the interceptor into a pass-through: every request and response goes by untouched, e.g.
   * after logout. Requests already waiting for a refresh still get its outcome. Affects every
   * application that uses this controller.
   */
  eject(): void;

  /** Undoes {@link TokenRefreshController.eject}: the interceptor handles requests again. */
  reinstate(): void;
}

/** The private link from a controller to the state it keeps in each application. */
export const CONTROLLER_GATE = Symbol(typeof ngDevMode !== 'undefined' && ngDevMode ? 'ngx-token-refresh gate' : '');

/** A controller as created here; the symbol keeps the link out of the public type. */
export interface InternalTokenRefreshController extends TokenRefreshController {
  readonly [CONTROLLER_GATE]: InjectionToken<RefreshGate>;
}

/**
 * Creates a functional interceptor that turns any number of concurrent 401s into one refresh call,
 * repeats the failed requests with the new token, and rejects them all with the refresh error when
 * the refresh fails. The controller may live in module scope: the lock, queue and token it uses
 * belong to each application's root injector. Only its off switch is shared: `eject()` affects every
 * application that uses the controller (`provideTokenRefresh` gives each application its own).
 *
 * @usageNotes
 * ```ts
 * const tokenRefresh = createTokenRefreshInterceptor({
 *   refreshApiCall: () =>
 *     inject(HttpClient).post('/auth/refresh', null, { observe: 'response', withCredentials: true }),
 *   extractToken: (response) => (response.body as { accessToken: string }).accessToken,
 * });
 *
 * bootstrapApplication(App, {
 *   providers: [provideHttpClient(withInterceptors([tokenRefresh.interceptor]))],
 * });
 * ```
 *
 * @throws in dev mode, when an option is missing or invalid; the message names the option.
 */
export function createTokenRefreshInterceptor(options: TokenRefreshOptions): TokenRefreshController {
  const resolved = resolveTokenRefreshOptions(options);
  const ejectSwitch: EjectSwitch = { ejected: false };
  // Provided in root: every application (every root injector: a browser tab, or one server-rendered
  // request) gets its own lock, queue and token, even when they share this controller from module scope.
  const gate = new InjectionToken<RefreshGate>(typeof ngDevMode !== 'undefined' && ngDevMode ? 'RefreshGate' : '', {
    providedIn: 'root',
    factory: () => new RefreshGate(resolved, ejectSwitch),
  });
  const controller: InternalTokenRefreshController = {
    interceptor: (request, next) => inject(gate).intercept(request, next),
    eject: () => void (ejectSwitch.ejected = true),
    reinstate: () => void (ejectSwitch.ejected = false),
    [CONTROLLER_GATE]: gate,
  };
  return controller;
}
