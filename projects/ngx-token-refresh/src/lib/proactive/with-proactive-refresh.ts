import { RuntimeError } from '../internal/runtime-error';
import { ProactiveRefresh } from './proactive-refresh';
import type { GatePluginFactory } from '../core/gate-plugin';
import { provideGatePlugin } from '../core/provide-gate-plugin';
import { type TokenRefreshFeature, makeTokenRefreshFeature } from '../core/token-refresh-feature';

/** Options of {@link withProactiveRefresh}. */
export interface ProactiveRefreshOptions {
  /**
   * How long before the access token expires to refresh it, in milliseconds. At most a quarter of
   * the token's lifetime is used (a 30-second token is refreshed 7.5 s before its expiry as estimated,
   * which errs up to a second early: about 21.5 s after it was issued). Keep it longer than a round trip plus a
   * second (`iat` and `exp` count whole seconds). Default: `60_000` (one minute).
   */
  readonly leadTime?: number;
  /**
   * The least time between two refreshes, in milliseconds, counted from the last refresh of any kind.
   * A token that expires before this much has passed gets no timer and is refreshed on its 401, so
   * very short tokens never cause a refresh loop. Default: `5_000`, or half the token's lifetime when
   * that is shorter (at least `1_000`): a 5-second token is still refreshed ahead of its expiry, and
   * a 2-second one on its 401. Less than `1_000` counts as `1_000`.
   */
  readonly minInterval?: number;
}

/**
 * Refreshes the access token shortly before it expires, so that steady traffic never meets a 401 and
 * no call pays for an extra round trip. The refresh goes through the same lock as the interceptor's:
 * a refresh ahead of time and a wave of 401s are one and the same call.
 *
 * - **When**: `leadTime` (one minute) before the token's `exp`, read from the token (a JWT) without
 *   verifying it. For an opaque (non-JWT) token, or one without a numeric `exp`, the lifetime its
 *   issuer gave with it counts (OAuth's `expires_in`: the `extractExpiresIn` option, `setToken`'s
 *   `expiresIn`, or the OAuth preset of `ngx-token-refresh/oauth`); without one it gets no timer and
 *   is refreshed on its 401 as without this feature.
 * - **Clock skew**: the device's clock is not trusted. The server's time is read from the `iat` of
 *   each new token when it arrives, so a device whose clock is minutes fast or slow still refreshes on
 *   time. A token given to `setToken()` counts as just issued.
 * - **Background and sleep**: a hidden tab sets no timer. When the page is shown again, comes back
 *   online, or the device wakes from sleep, it checks at once and refreshes if the token is due. With
 *   {@link withCrossTabSync}, one tab refreshes and the others take its token.
 * - **Failure**: a refresh ahead of time that fails changes nothing: the token, still valid, stays
 *   until the server rejects it, and only then does the interceptor's usual refresh (and
 *   `onRefreshFailure`) run. The next try waits `minInterval`, then twice as long after each failure.
 *   A refresh it starts after the token expired (a wake, a tab shown again) is the usual one.
 * - **Never**: on the server (server rendering), after a logout (`setToken(null)`), while disabled,
 *   or after the application is destroyed. Timers run outside the Angular zone, so a zone.js
 *   application still becomes stable.
 *
 * The timing is reported on `TokenRefreshRef.events` as `refreshScheduled` (`at`: when the next
 * refresh is due), and a refresh it starts as `refreshStarted` with `ahead: true`.
 *
 * @usageNotes
 * ```ts
 * provideAuth({ onSessionExpired: navigateToLogin }, withProactiveRefresh());
 * provideTokenRefresh(options, withProactiveRefresh({ leadTime: 30_000 }));
 * ```
 *
 * @throws in dev mode, when an option has the wrong type.
 */
export function withProactiveRefresh(options: ProactiveRefreshOptions = {}): TokenRefreshFeature<'ProactiveRefresh'> {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidProactiveRefreshOptions(options);
  const { leadTime, minInterval } = options;
  // Checked in dev mode only, so a value that is not a number of milliseconds falls back to the
  // default here: NaN would make every moment due.
  const interval = milliseconds(minInterval, null);
  const settings = {
    leadTime: milliseconds(leadTime, 60_000),
    // null: the default, which scales with each token's lifetime (see ProactiveRefresh).
    minInterval: interval === null ? null : Math.max(interval, 1000),
  };
  const factory: GatePluginFactory = (gate) => ProactiveRefresh.create(settings, gate);
  return makeTokenRefreshFeature('ProactiveRefresh', provideGatePlugin(factory));
}

function milliseconds<T>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && value >= 0 && value < Infinity ? value : fallback;
}

function assertValidProactiveRefreshOptions(options: ProactiveRefreshOptions): void {
  const fail = (problem: string): never => {
    throw new RuntimeError('InvalidOptions', `withProactiveRefresh: ${problem}`);
  };
  if (typeof options !== 'object' || options === null) fail(`options must be an object, got ${String(options)}`);
  for (const name of ['leadTime', 'minInterval'] as const) {
    const value = options[name];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      fail(`${name} must be a finite number of milliseconds, 0 or more; got ${String(value)}`);
    }
  }
}
