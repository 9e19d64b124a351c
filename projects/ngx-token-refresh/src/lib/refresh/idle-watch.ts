import { InjectionToken } from '@angular/core';

/** What the gate lets an idle watch see and do. */
export interface WatchedGate {
  /** The current token, or `null`. */
  token(): string | null;
  /**
   * Ends the session for idleness, in this tab: the token is cleared (the other tabs are not told:
   * each ends its own), a refresh in flight is ended, and `idleTimeout` is emitted.
   */
  timeOut(): void;
  /** The warning ended with somebody active again: what waited for that (a refresh ahead of expiry) may go on. */
  resumed(): void;
}

/**
 * Ends the session when nobody has been active for too long (made by `withIdleTimeout()`). The gate
 * knows only this contract, so an application without the feature ships none of it.
 */
export interface IdleWatch {
  /**
   * The token changed. `signIn`: the app's own new token (a sign-in), which counts as activity; any
   * other token (refreshed, put back, another tab's) goes on from the activity the tabs stored, and
   * ends at once when that is older than the idle time. `null` stops the watch.
   */
  tokenChanged(token: string | null, signIn: boolean): void;
  /**
   * Before a request goes out: ends the session first if its deadline has passed (a tab that slept
   * or was hidden through it, before its timers ran).
   */
  check(): void;
  /**
   * Whether nobody is there: the session is about to end (the warning) or ended for idleness. No
   * refresh ahead of expiry then: an idle session is not kept alive by its own timer.
   */
  resting(): boolean;
  /** Whether the session was ended for idleness and no new one began: a refresh must not bring it back. */
  timedOut(): boolean;
}

/** Makes the idle watch of a gate, in the gate's injection context; `null` where it must not run. */
export type IdleWatchFactory = (gate: WatchedGate) => IdleWatch | null;

/** The idle watch factory a feature registered in the injector that provides the interceptor. */
export const IDLE_WATCH = new InjectionToken<IdleWatchFactory>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'IDLE_WATCH' : '',
);
