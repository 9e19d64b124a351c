import { InjectionToken, type Signal, type WritableSignal, signal } from '@angular/core';

/**
 * Where a session stands with {@link withIdleTimeout}:
 * - `off`: no session (signed out), or a server render: nothing is watched.
 * - `active`: somebody was active in a tab of the origin within the idle time, minus the warning.
 * - `warning`: the session ends in `remaining` ms unless somebody is active (or `stayActive()` is called).
 * - `timedOut`: the session ended for idleness; it stays so until the next sign-in.
 */
export type IdleState = 'off' | 'active' | 'warning' | 'timedOut';

/**
 * The idle timeout of one application, as {@link injectIdleTimeout} hands it out: signals for a
 * warning dialog, and the one call that keeps the session.
 */
export interface IdleTimeoutRef {
  /** Where the session stands; see {@link IdleState}. */
  readonly state: Signal<IdleState>;
  /**
   * While `warning`: how long until the session ends, in milliseconds (updated every second); `null`
   * otherwise.
   */
  readonly remaining: Signal<number | null>;
  /**
   * Counts as activity in every tab, as a click would: ends the warning ("Stay signed in"). Does
   * nothing without a session or after it ended.
   */
  stayActive(): void;
}

/** The signals of one application's idle timeout, and what `stayActive()` calls; set by the watch. */
export class IdleTimeoutState {
  readonly state: WritableSignal<IdleState> = signal('off');
  readonly remaining: WritableSignal<number | null> = signal(null);
  stay: () => void = () => undefined;
  readonly ref: IdleTimeoutRef = {
    state: this.state.asReadonly(),
    remaining: this.remaining.asReadonly(),
    stayActive: () => this.stay(),
  };
}

/** The idle timeout state of the injector that provides the interceptor (`withIdleTimeout()`). */
export const IDLE_TIMEOUT_STATE = new InjectionToken<IdleTimeoutState>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'IDLE_TIMEOUT_STATE' : '',
);
