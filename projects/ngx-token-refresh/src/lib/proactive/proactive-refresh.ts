import { isPlatformBrowser } from '@angular/common';
import { DOCUMENT, DestroyRef, NgZone, PLATFORM_ID, inject } from '@angular/core';

import { parseJwtClaims } from '../jwt/parse-jwt-claims';
import type { GateHost, GatePlugin } from '../core/gate-plugin';
import type { TokenRefreshEvent } from '../core/token-refresh-event';

/** The settings of {@link ProactiveRefresh}, as `withProactiveRefresh` resolved them. */
export interface ProactiveRefreshSettings {
  readonly leadTime: number;
  /** The option as given (at least 1 s), or `null` for the default, which scales with the lifetime. */
  readonly minInterval: number | null;
}

/**
 * The longest one timer waits. Timers stand still while a device sleeps, so a single long one would
 * fire minutes late after a wake; short steps against the wall clock notice within this much that the
 * due time has passed.
 */
const MAX_WAIT_MS = 10_000;

/** The longest wait after refreshes that failed one after another. */
const MAX_BACKOFF_MS = 300_000;

/** The default least time between refreshes, for tokens that live ten seconds or more. */
const DEFAULT_MIN_INTERVAL_MS = 5_000;

/** The least time between refreshes, whatever the token's lifetime or the option say. */
const MIN_INTERVAL_FLOOR_MS = 1_000;

/**
 * Refreshes the token shortly before it expires, so steady traffic never meets a 401:
 *
 * - Due `leadTime` before the token's `exp`, but never more than a quarter of its lifetime
 *   (`exp - iat`) early, so short tokens are not refreshed right away.
 * - Clock skew: the server's clock is read from the `iat` of each fresh token against this device's
 *   clock when the token arrived, so a device whose clock is minutes off still refreshes on time.
 *   A token put back (restored after a reload) is not fresh: the last offset measured is used, or,
 *   before any, the device's clock.
 * - A token that is not a JWT with a numeric `exp` counts on the expiry its issuer gave with it
 *   (`expires_in`, on this device's clock), and without one gets no timer; nor does one that expires
 *   before `minInterval` has passed (it is refreshed on its 401, as without this feature: never a
 *   loop). A token without `iat` is taken as issued when it arrived fresh.
 * - At most one refresh per `minInterval`, counted from the last refresh of any kind; after failures
 *   the wait doubles, up to 5 minutes; coming online drops the doubling. The default `minInterval`
 *   is 5 s, or half the token's lifetime when that is shorter (at least 1 s).
 * - A refresh it starts while the token is still valid is "ahead": its failure keeps the token. One
 *   it starts after the token expired (a wake, a tab shown again) is the usual refresh.
 * - No timer while the page is hidden; on `visibilitychange` and `pageshow` it checks at once, in
 *   the capture phase, so a refresh due starts before the app's own listeners send calls; on `online`
 *   it plans again. Timers run in steps of at most 10 s against the wall clock, so a device that
 *   slept refreshes within seconds of waking.
 * - Timers and listeners run outside the Angular zone (they never keep a zone.js application from
 *   becoming stable); the refresh itself runs inside it, like any request of the application.
 */
export class ProactiveRefresh implements GatePlugin {
  readonly #gate: GateHost;
  readonly #settings: ProactiveRefreshSettings;
  readonly #zone = inject(NgZone);
  readonly #document = inject(DOCUMENT);
  /** The server's clock minus this device's (ms), from the `iat` of the last fresh token; 0 before. */
  #offset = 0;
  /** When the last fresh token arrived, and when the last refresh began (device time, ms). */
  #freshAt = -Infinity;
  #startedAt = -Infinity;
  /** Refreshes that failed in a row. */
  #failures = 0;
  /** When the next refresh is due (device time, ms), or `null` for none; `undefined` before the first plan. */
  #due: number | null | undefined;
  /** When the current token expires (device time, ms), as far as it can be told; `Infinity` when not. */
  #expiresAt = Infinity;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #destroyed = false;

  /**
   * The scheduler of one gate, or `null` on the server: a render lives for one request, and a timer
   * there would only hold the render up. Needs an injection context.
   */
  static create(settings: ProactiveRefreshSettings, gate: GateHost): ProactiveRefresh | null {
    return isPlatformBrowser(inject(PLATFORM_ID)) ? new ProactiveRefresh(settings, gate) : null;
  }

  private constructor(settings: ProactiveRefreshSettings, gate: GateHost) {
    this.#settings = settings;
    this.#gate = gate;
    // Shown again: refresh at once if due, before the app's own listeners send their calls (a
    // capturing listener on the target runs first), so those calls wait for the new token.
    const check = () => (this.#isDue() ? this.#fire() : this.#arm());
    const online = () =>
      this.#zone.run(() => {
        // The network is back: whatever failed while it was gone may work now (the floor still holds).
        this.#failures = 0;
        this.plan(false);
      });
    const document = this.#document;
    const window = document.defaultView;
    this.#zone.runOutsideAngular(() => {
      document.addEventListener('visibilitychange', check, true);
      window?.addEventListener('pageshow', check, true);
      window?.addEventListener('online', online);
    });
    inject(DestroyRef).onDestroy(() => {
      this.#destroyed = true;
      clearTimeout(this.#timer);
      document.removeEventListener('visibilitychange', check, true);
      window?.removeEventListener('pageshow', check, true);
      window?.removeEventListener('online', online);
    });
  }

  /**
   * Plans again. `fresh`: the token was just issued (a refresh, a sign-in, another tab's refresh), so
   * its `iat` tells the server's clock; a token put back (restored after a reload, kept after a
   * passing failure) is not.
   */
  plan(fresh: boolean): void {
    const now = Date.now();
    const token = this.#gate.disabled() ? null : this.#gate.token();
    const claims = token === null ? null : parseJwtClaims(token);
    const exp = claims?.exp;
    let iat = claims?.iat;
    // An `iat` after `exp` is nonsense: no clock to read from it.
    if (!isTime(iat) || (isTime(exp) && iat > exp)) iat = undefined;
    if (fresh) {
      this.#freshAt = now;
      this.#failures = 0;
      // `iat` counts whole seconds: the token may have been issued up to a second after it says, so
      // count that second in, and err on the early side.
      if (iat !== undefined) this.#offset = (iat + 1) * 1000 - now;
    }
    let due: number | null = null;
    // A JWT's own `exp` first (the skew of the server's clock is measured on it); else what the issuer
    // said with the token (`expires_in`, counted on this device's clock, so no skew to correct).
    this.#expiresAt = isTime(exp)
      ? exp * 1000 - this.#offset
      : token === null
        ? Infinity
        : (this.#gate.expiresAt() ?? Infinity);
    if (this.#expiresAt !== Infinity) {
      const { leadTime } = this.#settings;
      const expiresAt = this.#expiresAt;
      // Without `iat`, a token is taken as issued when it last arrived fresh (by the device's clock);
      // before any fresh token (one put back at start-up), what is left of it is all that is known.
      const issuedAt = this.#freshAt === -Infinity ? now : this.#freshAt;
      const lifetime = iat !== undefined && isTime(exp) ? (exp - iat) * 1000 : expiresAt - issuedAt;
      // A short token is due three quarters into its life, which its expiry, read up to a second
      // early, brings closer still: a fixed 5 s floor would give a 5-second token no timer, and every
      // expiry a 401. Half its lifetime keeps the floor before the due time, and no shorter than 1 s
      // it still rules out a loop on tokens that are due at once.
      const minInterval =
        this.#settings.minInterval ?? Math.min(DEFAULT_MIN_INTERVAL_MS, Math.max(lifetime / 2, MIN_INTERVAL_FLOOR_MS));
      const backoff = this.#failures > 0 ? Math.min(minInterval * 2 ** (this.#failures - 1), MAX_BACKOFF_MS) : 0;
      // At most one refresh per minInterval, counted from the last refresh of any kind, and longer
      // after failures.
      const floor = Math.max(this.#freshAt, this.#startedAt) + Math.max(minInterval, backoff);
      // A token that expires before the floor allows a refresh is left to its 401.
      if (expiresAt > floor) due = Math.max(expiresAt - Math.min(leadTime, lifetime / 4), floor);
    }
    if (due !== this.#due) {
      this.#due = due;
      this.#gate.emit({ type: 'refreshScheduled', at: due });
    }
    this.#arm();
  }

  /** The token changed, or the interceptor was disabled or enabled, or the idle warning ended: plan again. */
  changed(fresh: boolean): void {
    this.plan(fresh);
  }

  event(event: TokenRefreshEvent): void {
    if (event.type === 'refreshStarted') {
      // Whatever started it: the floor between refreshes counts from here.
      this.#startedAt = Date.now();
      clearTimeout(this.#timer);
    } else if (event.type === 'refreshFailed') {
      // The next refresh ahead of expiry waits longer.
      this.#failures++;
      this.plan(false);
    }
  }

  /** Sets the timer towards the due time, unless there is none or the page is hidden. */
  #arm(): void {
    clearTimeout(this.#timer);
    const due = this.#due;
    if (due == null || this.#destroyed || this.#document.visibilityState === 'hidden') return;
    // Never synchronous: plan() runs inside the gate's own updates.
    const wait = Math.min(Math.max(due - Date.now(), 0), MAX_WAIT_MS);
    this.#timer = this.#zone.runOutsideAngular(() => setTimeout(() => this.#fire(), wait));
  }

  #isDue(): boolean {
    return this.#due != null && !this.#destroyed && Date.now() >= this.#due;
  }

  #fire(): void {
    // A token that has expired meanwhile (a sleep, a hidden tab) is not refreshed ahead of anything:
    // that refresh is the usual one, whose failure the waiting requests and onRefreshFailure see.
    if (this.#isDue()) this.#zone.run(() => this.#gate.plannedRefresh(Date.now() < this.#expiresAt));
    else this.#arm();
  }
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
