import type { Signal } from '@angular/core';
import type { Observable } from 'rxjs';

import type { TokenRefreshEvent } from './token-refresh-event';

/**
 * A handle on the token-refresh interceptor of one application, as returned by
 * {@link injectTokenRefresh}: its state (`isRefreshing`, `token`, `events`) and its actions
 * (`refresh`, `setToken`, `disable`, `enable`). Each application (each root injector) has its own
 * lock, queue and token.
 *
 * @usageNotes
 * ```ts
 * const refresh = injectTokenRefresh();
 * readonly busy = refresh.isRefreshing; // for a spinner
 * login(token: string) { refresh.setToken(token); }
 * ```
 */
export interface TokenRefreshRef {
  /** `true` while a refresh call is in flight. */
  readonly isRefreshing: Signal<boolean>;

  /**
   * The current access token: the last one a refresh produced, or the one given to `setToken`.
   * `null` before any, and after a failed refresh.
   */
  readonly token: Signal<string | null>;

  /** What the interceptor does, for logging or display. Emits only for this application. */
  readonly events: Observable<TokenRefreshEvent>;

  /**
   * Refreshes the token now, or joins the refresh in flight, through the same lock as the
   * interceptor (so a refresh started here and one started by a 401 are one and the same call).
   * Emits the new token, or fails with the refresh's error. Starts when subscribed; unsubscribing
   * does not cancel the refresh. Use it to restore a session after a reload (cookie flow) or to
   * refresh ahead of expiry.
   *
   * @example injectTokenRefresh().refresh().subscribe({ error: () => router.navigate(['/login']) })
   */
  refresh(): Observable<string>;

  /**
   * Sets the current token, e.g. after login (a token) or logout (`null`). A 401 that comes back
   * afterwards for a request sent before is repeated with this token instead of starting a refresh.
   *
   * A token counts as just issued: `withProactiveRefresh` reads the server's clock from its `iat`,
   * and `withCrossTabSync` hands it to the other tabs. For a token you put back (restored from
   * storage after a reload), pass `{ restored: true }`: it is read with the clock offset measured
   * last (or the device's clock), and the other tabs keep theirs. `expiresIn`: how many seconds the
   * token lives (OAuth's `expires_in`), for `withProactiveRefresh` when the token is opaque.
   */
  setToken(token: string | null, options?: { readonly restored?: boolean; readonly expiresIn?: number }): void;

  /**
   * Turns the interceptor into a pass-through: every request and response goes by untouched, and
   * nothing is refreshed ahead of time. Requests already waiting for a refresh still get its outcome.
   * Affects this application only.
   */
  disable(): void;

  /** Undoes {@link TokenRefreshRef.disable}: the interceptor handles requests again. */
  enable(): void;
}
