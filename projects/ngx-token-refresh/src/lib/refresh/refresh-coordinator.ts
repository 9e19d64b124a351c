import { InjectionToken } from '@angular/core';
import type { Observable } from 'rxjs';

import type { RefreshResult } from './refresh-call';
import type { ResolvedTokenRefreshOptions } from './resolve-token-refresh-options';

/** What the gate lets a coordinator do to it: the way in for news from other tabs. */
export interface CoordinatedGate {
  /**
   * Another tab brought `token` (it refreshed, or signed in): use it from now on. `expiresAt`: when it
   * expires (ms since the epoch), if its issuer said.
   */
  receive(token: string, expiresAt: number | null): void;
  /** Another tab signed out: forget the token. Whether this tab had anything to forget. */
  signOut(): boolean;
  /** This tab's token, for a tab that asks for it; `null` when it has none. */
  token(): string | null;
  /** When this tab's token expires (ms since the epoch), if its issuer said. */
  expiresAt(): number | null;
  /** Before `token` goes to a tab that asked for it: what that tab needs to use it is put in place. */
  beforeSharing(token: string): Promise<void>;
}

/**
 * Coordinates one application's refreshes with the other tabs of its origin (made by
 * `withCrossTabSync()`). The gate knows only this contract, so an application without the feature
 * ships none of it.
 */
export interface RefreshCoordinator {
  /**
   * `refresh` (the refresh call), run when it is this tab's turn. Unsubscribed by the gate when the
   * refresh ended otherwise (a token from another tab, a sign-out, the application destroyed).
   */
  coordinate(refresh: Observable<RefreshResult>): Observable<RefreshResult>;
  /**
   * The application set a token (a sign-in) or cleared it (a sign-out): tell the other tabs, with
   * when the token expires if known.
   */
  announce(token: string | null, expiresAt: number | null): void;
}

/** Makes the coordinator of a gate, in the gate's injection context; `null` where it cannot work. */
export type RefreshCoordinatorFactory = (
  gate: CoordinatedGate,
  options: ResolvedTokenRefreshOptions,
) => RefreshCoordinator | null;

/** The coordinator factory a feature registered in the injector that provides the interceptor. */
export const REFRESH_COORDINATOR = new InjectionToken<RefreshCoordinatorFactory>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'REFRESH_COORDINATOR' : '',
);

/**
 * Provided as `true` by a setup whose refresh token is one copy shared by the tabs (the OAuth preset
 * with a shared store): a tab that cannot get the cross-tab lock within `refreshTimeout` then fails
 * its refresh with `TokenRefreshError` `Timeout` (a passing failure: the session is kept) instead of
 * refreshing without the lock, which would send the same refresh token as the tab holding it.
 */
export const REFRESH_ONLY_UNDER_LOCK = new InjectionToken<boolean>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'REFRESH_ONLY_UNDER_LOCK' : '',
);
