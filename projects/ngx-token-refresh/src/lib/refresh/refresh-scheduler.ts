import { InjectionToken } from '@angular/core';

import type { TokenRefreshEvent } from './token-refresh-event';

/** What the gate lets a scheduler see and do. */
export interface ScheduledGate {
  /** The current token, or `null`. */
  token(): string | null;
  /** When the current token expires (device time, ms) as its issuer said (`expires_in`), or `null`. */
  expiresAt(): number | null;
  /** Whether the interceptor is disabled (a pass-through): then nothing is refreshed ahead of time. */
  disabled(): boolean;
  /**
   * Starts a refresh, unless one is in flight already. `ahead`: the token is still valid, so a
   * failure that nothing else waited for keeps it.
   */
  refresh(ahead: boolean): void;
  /** Emits on `TokenRefreshRef.events`. */
  emit(event: TokenRefreshEvent): void;
}

/**
 * Plans refreshes ahead of the token's expiry (made by `withProactiveRefresh()`). The gate knows only
 * this contract, so an application without the feature ships none of it. The gate tells it what
 * happened; it decides when the next refresh is due.
 */
export interface RefreshScheduler {
  /**
   * Plan again: the token changed, or the interceptor was disabled or enabled. `fresh`: the token was just issued (a
   * refresh, a sign-in, another tab's refresh), so its `iat` tells the server's clock; a token put
   * back (restored after a reload, kept after a passing failure) is not.
   */
  plan(fresh: boolean): void;
  /** A refresh call began, whatever started it: the floor between refreshes counts from here. */
  started(): void;
  /** A refresh failed: the next one ahead of expiry waits longer. Called before the token changes. */
  failed(): void;
}

/** Makes the scheduler of a gate, in the gate's injection context; `null` where it must not run. */
export type RefreshSchedulerFactory = (gate: ScheduledGate) => RefreshScheduler | null;

/** The scheduler factory a feature registered in the injector that provides the interceptor. */
export const REFRESH_SCHEDULER = new InjectionToken<RefreshSchedulerFactory>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'REFRESH_SCHEDULER' : '',
);
