import { isPlatformBrowser } from '@angular/common';
import { DOCUMENT, DestroyRef, NgZone, PLATFORM_ID, inject } from '@angular/core';
import { type Observable, of } from 'rxjs';

import { injectCallbackRunner } from '../internal/inject-callback-runner';
import type { GateHost, GatePlugin } from '../core/gate-plugin';
import type { RefreshResult } from '../core/refresh-call';
import { TokenRefreshError } from '../core/token-refresh-error';
import type { IdleState, IdleTimeoutState } from './idle-timeout-ref';

/** The settings of {@link IdleTimeout}, as `withIdleTimeout` resolved them. */
export interface IdleTimeoutSettings {
  readonly idle: number;
  readonly warnBefore: number;
  readonly name: string;
  readonly signOut?: (token: string) => void;
  readonly onTimeout?: () => void;
}

/** What tabs tell each other on the channel (the one of `withCrossTabSync`, which ignores these). */
type IdleMessage =
  { readonly type: 'idleActivity'; readonly at: number } | { readonly type: 'idleTimeout'; readonly at: number };

/** What counts as activity, on the document; each also checks the deadline first. */
const DOCUMENT_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart', 'visibilitychange'] as const;
/**
 * And on the window, not captured: the window itself getting focus (coming back to the tab), or the
 * page shown again (the back-forward cache). An element getting focus is no activity: a dialog that
 * focuses its first button would keep the session alive forever.
 */
const WINDOW_EVENTS = ['focus', 'pageshow'] as const;
/**
 * The longest one timer waits. Timers stand still while a device sleeps: short steps against the
 * wall clock notice a passed deadline within this much of waking.
 */
const MAX_WAIT_MS = 10_000;
/** How often the time left is updated during the warning. */
const TICK_MS = 1000;
/** How long the tab that tells the server holds the lock that keeps the others from telling it too. */
const SIGN_OUT_HOLD_MS = 5000;

/**
 * Ends the session when nobody has been active in any tab of the origin for `idle` ms:
 *
 * - Activity (pointer, keys, wheel, touch, focus, the tab shown again) is noticed in the capture
 *   phase, passively, and shared at most once per `throttle` (a twentieth of `idle`, at most 5 s; the
 *   last one of a burst is shared at its end): posted on the `BroadcastChannel` `<name>` and written to
 *   `localStorage` (`<name>:idle`), which a tab reads before it ends a session, so a tab that missed
 *   messages (frozen in the background) never ends a session somebody is using elsewhere.
 * - `warning` from `warnBefore` ms before the deadline, with the time left every second; any activity
 *   (or `stayActive()`) ends it in every tab.
 * - At the deadline every tab ends its session by itself (a hidden or sleeping tab as soon as it wakes,
 *   and before any request of its goes out: the gate calls `request()` first), and the first tells the
 *   others. One tab only (a Web Lock) calls `signOut` to tell the server; every tab calls `onTimeout`.
 * - Until the next sign-in, no refresh is sent (a 401 cannot bring the session back); during the
 *   warning, none ahead of expiry (the session is about to end).
 * - Never on the server. Timers and listeners run outside the Angular zone, and go with the application.
 */
export class IdleTimeout implements GatePlugin {
  readonly #settings: IdleTimeoutSettings;
  readonly #gate: GateHost;
  readonly #state: IdleTimeoutState;
  readonly #zone = inject(NgZone);
  readonly #notify = injectCallbackRunner();
  readonly #throttle: number;
  readonly #storageKey: string;
  readonly #channel: BroadcastChannel | null;
  /** The newest activity known in any tab, and this tab's own newest, shared or not (ms). */
  #lastActivity = 0;
  #local = 0;
  /** When this tab last shared its activity. */
  #shared = -Infinity;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #trailing: ReturnType<typeof setTimeout> | undefined;
  /** Lets go of the lock held after telling the server, if held. */
  #release: (() => void) | null = null;

  /** The watch of one gate, or `null` on the server (a render is nobody's activity). Needs an injection context. */
  static create(settings: IdleTimeoutSettings, gate: GateHost, state: IdleTimeoutState): IdleTimeout | null {
    return isPlatformBrowser(inject(PLATFORM_ID)) ? new IdleTimeout(settings, gate, state) : null;
  }

  private constructor(settings: IdleTimeoutSettings, gate: GateHost, state: IdleTimeoutState) {
    this.#settings = settings;
    this.#gate = gate;
    this.#state = state;
    this.#throttle = Math.min(settings.idle / 20, 5000);
    this.#storageKey = `${settings.name}:idle`;
    this.#channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(settings.name) : null;
    state.stay = () => this.#activity(true);
    const document = inject(DOCUMENT);
    const window = document.defaultView;
    const onActivity = () => this.#activity(false);
    const onVisibility = () => document.visibilityState === 'visible' && this.#activity(false);
    // `pageshow` is the document's event, dispatched at the window; `focus` there is the window's own.
    const onWindow = (event: Event) => (event.type === 'pageshow' || event.target === window) && this.#activity(false);
    const listen = { capture: true, passive: true };
    const listenOnWindow = { passive: true };
    this.#zone.runOutsideAngular(() => {
      if (this.#channel) this.#channel.onmessage = (event: MessageEvent<unknown>) => this.#receive(event.data);
      for (const type of DOCUMENT_EVENTS) {
        document.addEventListener(type, type === 'visibilitychange' ? onVisibility : onActivity, listen);
      }
      for (const type of WINDOW_EVENTS) window?.addEventListener(type, onWindow, listenOnWindow);
    });
    inject(DestroyRef).onDestroy(() => {
      state.stay = () => undefined;
      this.#stop('off');
      clearTimeout(this.#timer);
      clearTimeout(this.#trailing);
      this.#channel?.close();
      this.#release?.();
      for (const type of DOCUMENT_EVENTS) {
        document.removeEventListener(type, type === 'visibilitychange' ? onVisibility : onActivity, listen);
      }
      for (const type of WINDOW_EVENTS) window?.removeEventListener(type, onWindow);
    });
  }

  /**
   * The token changed. `signIn`: the app's own new token (a sign-in), which counts as activity; any
   * other token (refreshed, put back, another tab's) goes on from the activity the tabs stored, and
   * ends at once when that is older than the idle time. No token stops the watch.
   */
  changed(_fresh: boolean, signIn: boolean): void {
    const token = this.#gate.token();
    if (token === null) {
      // Signed out (or ended here): nothing to watch. An ended session says so until the next sign-in.
      if (this.#state.state() !== 'timedOut') this.#stop('off');
      return;
    }
    if (this.#live() && !signIn) return;
    const now = Date.now();
    if (signIn) {
      // Somebody at the keyboard signed in: a new session, from now.
      this.#release?.();
      this.#lastActivity = this.#local = now;
      this.#set('active', null);
      this.#share(now);
      this.#plan();
      return;
    }
    // A session this tab did not start (put back after a reload, refreshed, another tab's): it goes on
    // from the activity the tabs stored, so a tab reloaded, restored from a discard, or opened again
    // after its deadline does not revive it. With nothing stored, from now.
    const stored = this.#readStored();
    const timedOut = this.#state.state() === 'timedOut';
    this.#lastActivity = this.#local = stored > 0 ? Math.min(stored, now) : now;
    this.#set('active', null);
    if (now >= this.#deadline()) this.#end(true, timedOut);
    else this.#plan();
  }

  /** Before a request goes out: a tab that slept or was hidden through its deadline ends the session first. */
  request(): void {
    this.#check();
  }

  /**
   * Whether a refresh may start: none after the session ended for idleness (a 401 is then the
   * answer), and none planned ahead of expiry during the warning (an idle session is not kept alive
   * by its own timer).
   */
  mayRefresh(planned: boolean): boolean {
    this.#check();
    const state = this.#state.state();
    return planned ? this.#live() && state !== 'warning' : state !== 'timedOut';
  }

  /** Only a new sign-in brings a session ended for idleness back, never a refresh. */
  refresh(call: Observable<RefreshResult>): Observable<RefreshResult> {
    this.#check();
    if (this.#state.state() !== 'timedOut') return call;
    return of<RefreshResult>({
      ok: false,
      error: new TokenRefreshError(
        'IdleTimeout',
        typeof ngDevMode !== 'undefined' && ngDevMode && 'the session ended for idleness; sign in again',
      ),
    });
  }

  #check(): void {
    if (this.#live() && Date.now() >= this.#deadline()) this.#end(true);
  }

  /** Activity in this tab; `now`: share it at once (a new session, "stay signed in"). */
  #activity(now: boolean): void {
    if (!this.#live()) return;
    const at = Date.now();
    // Back after the deadline (a wake, the tab shown again): that ends the session, it does not extend it.
    if (at >= this.#deadline()) {
      this.#end(true);
      return;
    }
    this.#local = at;
    if (now || at - this.#shared >= this.#throttle) {
      this.#share(at);
    } else if (this.#trailing === undefined) {
      // The last activity of a burst is shared at its end, so the others never lag by more than the throttle.
      this.#trailing = this.#zone.runOutsideAngular(() =>
        setTimeout(
          () => {
            this.#trailing = undefined;
            if (this.#live() && this.#local > this.#shared) this.#share(this.#local);
          },
          this.#shared + this.#throttle - at,
        ),
      );
    }
  }

  #share(at: number): void {
    this.#shared = at;
    try {
      // Never an older time over a newer one (a late trailing share).
      if (at > this.#readStored()) localStorage.setItem(this.#storageKey, String(at));
    } catch {
      // No storage (a private mode, a full quota): the channel alone carries it.
    }
    this.#post({ type: 'idleActivity', at });
    this.#learn(at);
  }

  #learn(at: number): void {
    if (at <= this.#lastActivity) return;
    this.#lastActivity = at;
    this.#plan();
  }

  #receive(data: unknown): void {
    const message = data as Partial<IdleMessage> | null;
    const at = message?.at;
    if (!this.#live() || typeof at !== 'number' || !Number.isFinite(at)) return;
    if (message?.type === 'idleActivity') this.#learn(at);
    // Another tab's deadline passed: this tab ends too when its own has (its knowledge may lag the
    // other's by the throttle at most); a tab that knows of newer activity, or waits longer, goes on.
    else if (message?.type === 'idleTimeout' && Date.now() + this.#throttle >= this.#deadline()) {
      this.#end(false);
    }
  }

  /** Sets the timer towards the warning or the deadline, and the state for now. */
  #plan(): void {
    clearTimeout(this.#timer);
    if (!this.#live()) return;
    const now = Date.now();
    const deadline = this.#deadline();
    if (now >= deadline) {
      this.#end(true);
      return;
    }
    const warnAt = deadline - this.#settings.warnBefore;
    const warning = now >= warnAt;
    this.#set(warning ? 'warning' : 'active', warning ? deadline - now : null);
    const wait = warning ? Math.min(TICK_MS, deadline - now) : Math.min(warnAt - now, MAX_WAIT_MS);
    this.#timer = this.#zone.runOutsideAngular(() => setTimeout(() => this.#plan(), wait));
  }

  /**
   * Ends the session in this tab. `own`: its own deadline passed (not another tab's message): it
   * checks the activity stored by the other tabs first, and if still due tells them, and the server.
   */
  #end(own: boolean, again = false): void {
    if (own) {
      const stored = this.#readStored();
      if (stored > this.#lastActivity && stored + this.#settings.idle > Date.now()) {
        this.#lastActivity = stored;
        this.#plan();
        return;
      }
    }
    const token = this.#gate.token();
    const at = this.#lastActivity;
    this.#stop('timedOut');
    this.#zone.run(() => {
      // Not news for the other tabs: each ends its own session at the same deadline.
      this.#gate.ref.setToken(null, { restored: true });
      this.#gate.emit({ type: 'idleTimeout' });
      if (own) {
        this.#post({ type: 'idleTimeout', at });
        // A session that had ended here already, brought back by another tab's token: told before.
        if (token !== null && !again) this.#signOutOnce(token, at);
      }
      if (!again) this.#notify(this.#settings.onTimeout);
    });
  }

  /**
   * Calls `signOut` in one tab only: the first whose deadline passed takes a Web Lock, the others find
   * it taken; a tab that wakes later finds the end recorded (`<name>:idle-ended`, the activity it
   * ended after) and leaves the server alone too.
   */
  #signOutOnce(token: string, at: number): void {
    const signOut = this.#settings.signOut;
    if (!signOut) return;
    const run = () => {
      if (this.#readStored(':idle-ended') >= at) return;
      try {
        localStorage.setItem(`${this.#storageKey}-ended`, String(at));
      } catch {
        // No storage: the lock alone keeps the tabs of this moment from telling the server twice.
      }
      this.#notify(() => signOut(token));
    };
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    if (typeof locks?.request !== 'function') {
      run();
      return;
    }
    locks
      .request(`${this.#settings.name}:idle-sign-out`, { ifAvailable: true }, (lock) => {
        if (!lock) return undefined;
        this.#zone.run(run);
        return new Promise<void>((release) => {
          this.#release = release;
          this.#zone.runOutsideAngular(() => setTimeout(release, SIGN_OUT_HOLD_MS));
        });
      })
      .catch(() => undefined);
  }

  #stop(state: IdleState): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#trailing);
    this.#trailing = undefined;
    this.#set(state, null);
  }

  #set(state: IdleState, remaining: number | null): void {
    const before = this.#state.state();
    if (before !== state || this.#state.remaining() !== remaining) {
      this.#zone.run(() => {
        this.#state.state.set(state);
        this.#state.remaining.set(remaining);
        // Somebody is back after the warning: refreshes ahead of expiry may run again.
        if (before === 'warning' && state === 'active') this.#gate.changed();
      });
    }
  }

  #live(): boolean {
    const state = this.#state.state();
    return state === 'active' || state === 'warning';
  }

  #deadline(): number {
    return Math.max(this.#lastActivity, this.#local) + this.#settings.idle;
  }

  /** A time the tabs stored (`<name>:idle`, or with `suffix` another entry), 0 when none. */
  #readStored(suffix = ''): number {
    try {
      const stored = Number(localStorage.getItem(suffix ? `${this.#settings.name}${suffix}` : this.#storageKey));
      return Number.isFinite(stored) ? stored : 0;
    } catch {
      return 0;
    }
  }

  #post(message: IdleMessage): void {
    try {
      this.#channel?.postMessage(message);
    } catch {
      // A closed channel (the application is being destroyed): nobody to tell.
    }
  }
}
