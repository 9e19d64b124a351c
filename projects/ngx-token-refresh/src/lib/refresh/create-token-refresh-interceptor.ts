import type { HttpInterceptorFn } from '@angular/common/http';
import { DestroyRef, EnvironmentInjector, InjectionToken, inject } from '@angular/core';

import { RefreshGate } from './refresh-gate';
import { type ResolvedTokenRefreshOptions, resolveTokenRefreshOptions } from './resolve-token-refresh-options';
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

  /** Undoes {@link eject}: the interceptor handles requests again. */
  reinstate(): void;
}

/** The private link from a controller to the state it keeps in each application. */
export const CONTROLLER_GATE = Symbol(typeof ngDevMode !== 'undefined' && ngDevMode ? 'ngx-token-refresh gate' : '');

/** A controller as created here; the symbol keeps the link out of the public type. */
export interface InternalTokenRefreshController extends TokenRefreshController {
  readonly [CONTROLLER_GATE]: () => RefreshGate;
}

/**
 * Creates a functional interceptor that turns any number of concurrent 401s into one refresh call,
 * repeats the failed requests with the new token, and rejects them all with the refresh error when
 * the refresh fails. The controller may live in module scope: the lock, queue and token it uses
 * belong to each application's root injector.
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
  return createTokenRefreshController(resolveTokenRefreshOptions(options));
}

/** The controller for options already resolved (and validated once, by the caller). */
export function createTokenRefreshController(resolved: ResolvedTokenRefreshOptions): TokenRefreshController {
  let ejected = false;
  const switches = {
    isEjected: () => ejected,
    eject: () => void (ejected = true),
    reinstate: () => void (ejected = false),
  };
  // Provided in root: every application (every root injector: a browser tab, or one server-rendered
  // request) gets its own lock, queue and token, even when they share this controller from module scope.
  const gate = new InjectionToken<RefreshGate>(typeof ngDevMode !== 'undefined' && ngDevMode ? 'RefreshGate' : '', {
    providedIn: 'root',
    factory: () => {
      const created = new RefreshGate(resolved, switches, inject(EnvironmentInjector));
      inject(DestroyRef).onDestroy(() => created.destroy());
      return created;
    },
  });
  const controller: InternalTokenRefreshController = {
    interceptor: (request, next) => (ejected ? next(request) : inject(gate).intercept(request, next)),
    eject: switches.eject,
    reinstate: switches.reinstate,
    [CONTROLLER_GATE]: () => inject(gate),
  };
  return controller;
}
