import { inject } from '@angular/core';

import { TOKEN_REFRESH_PRESET } from '../internal/provide-token-refresh-preset';
import { RuntimeError } from '../internal/runtime-error';
import type { GatePluginFactory } from '../core/gate-plugin';
import { provideGatePlugin } from '../core/provide-gate-plugin';
import { type TokenRefreshFeature, makeTokenRefreshFeature } from '../core/token-refresh-feature';
import { IdleTimeout } from './idle-timeout';
import { IDLE_TIMEOUT_STATE, IdleTimeoutState } from './idle-timeout-ref';

/** Options of {@link withIdleTimeout}. */
export interface IdleTimeoutOptions {
  /**
   * How long nobody may be active in any tab of the origin before the session ends, in milliseconds
   * (15 minutes: `15 * 60_000`). Required.
   */
  readonly idle: number;
  /**
   * How long before the end the `warning` state begins, in milliseconds, for a dialog ("You will be
   * signed out in 60 s"). Default: `60_000`. Capped at half of `idle`: a larger value counts as
   * `idle / 2` (`{ idle: 60_000, warnBefore: 60_000 }` warns after 30 s, for the last 30 s).
   *
   * @example warnBefore: 2 * 60_000
   */
  readonly warnBefore?: number;
  /**
   * The name of the `BroadcastChannel` (and of the `localStorage` entry) through which the tabs agree:
   * the same as `withCrossTabSync()`'s by default. Give applications on one origin that have separate
   * sessions separate names. Default: `'ngx-token-refresh'`.
   */
  readonly name?: string;
  /**
   * Called once across the tabs when the session ends, in the tab whose deadline passed first, with
   * the token the session had, in the application's injection context: tell your server here (a
   * logout call), so that the refresh token can no longer bring the session back. `provideAuth` sends
   * its logout. Default: none.
   */
  readonly signOut?: (token: string) => void;
  /**
   * Called in every tab when its session ended for idleness, in the application's injection context:
   * send people to the sign-in page. `provideAuth` calls its `onSessionExpired` with an `ApiError` of
   * code `IdleTimeout` (`navigateToLogin` then adds `?reason=idle`). Default: none.
   *
   * @example onTimeout: () => inject(Router).navigate(['/login'], { queryParams: { reason: 'idle' } })
   */
  readonly onTimeout?: () => void;
}

/**
 * Ends the session when the person leaves: after `idle` ms without activity in any tab of the origin,
 * every tab signs out at once, the server is told once, and a warning comes first.
 *
 * - **Activity**: pointer, keys, wheel, touch, focus, and a tab shown again, in any tab of the origin
 *   (they agree through the channel of {@link withCrossTabSync}; a tab alone works alone). Noticed
 *   passively and shared at most once per a twentieth of `idle` (5 s at most), never per event.
 * - **Warning**: {@link injectIdleTimeout} gives the `state` (`warning` from `warnBefore` before the
 *   end) and the time `remaining`, so the app shows its own dialog; `stayActive()` is the "Stay signed
 *   in" button.
 * - **The end**: each tab ends its session at the deadline: its token is cleared, `idleTimeout` is
 *   emitted, `onTimeout` runs, and one tab calls `signOut` (the server's logout). A tab that was hidden
 *   or asleep through the deadline signs out as it wakes, before any of its requests goes out. No
 *   refresh is sent until the next sign-in, so a 401 cannot bring the session back.
 * - **Proactive refresh** ({@link withProactiveRefresh}) stops during the warning and after the end:
 *   an idle session is not kept alive by its own timer beyond its deadline.
 * - **Never** on the server (a render is nobody's activity). Timers and listeners run outside the
 *   Angular zone and are removed with the application.
 *
 * An idle timeout in the browser is a convenience for the person at the keyboard, not a control: a
 * script of the page can keep it alive, and a closed laptop never runs it. The server's own limits
 * (the refresh token's lifetime, an idle limit of its own) are what end a session for sure.
 *
 * @usageNotes
 * ```ts
 * provideAuth({ onSessionExpired: navigateToLogin }, withCrossTabSync(), withIdleTimeout({ idle: 15 * 60_000 }));
 * ```
 *
 * @throws in dev mode, when an option has the wrong type.
 */
export function withIdleTimeout(options: IdleTimeoutOptions): TokenRefreshFeature<'IdleTimeout'> {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidIdleTimeoutOptions(options);
  const { name = 'ngx-token-refresh', signOut, onTimeout } = options;
  // Checked in dev mode only: in production a value that is no number of milliseconds falls back to
  // 15 minutes here (NaN would make every moment the deadline).
  const idle = milliseconds(options.idle, 15 * 60_000, 1000);
  const warnBefore = Math.min(milliseconds(options.warnBefore, 60_000, 0), idle / 2);
  const factory: GatePluginFactory = (gate) => {
    const preset = inject(TOKEN_REFRESH_PRESET, { optional: true });
    return IdleTimeout.create(
      { idle, warnBefore, name, signOut: signOut ?? preset?.idleSignOut, onTimeout },
      gate,
      inject(IDLE_TIMEOUT_STATE),
    );
  };
  return makeTokenRefreshFeature('IdleTimeout', [
    { provide: IDLE_TIMEOUT_STATE, useFactory: () => new IdleTimeoutState() },
    ...provideGatePlugin(factory),
  ]);
}

function milliseconds(value: unknown, fallback: number, least: number): number {
  return typeof value === 'number' && value >= least && value < Infinity ? value : fallback;
}

function assertValidIdleTimeoutOptions(options: IdleTimeoutOptions): void {
  const fail = (problem: string): never => {
    throw new RuntimeError('InvalidOptions', `withIdleTimeout: ${problem}`);
  };
  if (typeof options !== 'object' || options === null) fail(`options must be an object, got ${String(options)}`);
  const { idle, warnBefore, name, signOut, onTimeout } = options;
  if (!(typeof idle === 'number' && Number.isFinite(idle) && idle >= 1000)) {
    fail(`idle must be a finite number of milliseconds, 1000 or more; got ${String(idle)}`);
  }
  if (warnBefore !== undefined && !(typeof warnBefore === 'number' && Number.isFinite(warnBefore) && warnBefore >= 0)) {
    fail(`warnBefore must be a finite number of milliseconds, 0 or more; got ${String(warnBefore)}`);
  }
  if (name !== undefined && (typeof name !== 'string' || name === '')) fail('name must be a non-empty string');
  for (const [key, value] of [
    ['signOut', signOut],
    ['onTimeout', onTimeout],
  ] as const) {
    if (value !== undefined && typeof value !== 'function') fail(`${key} must be a function`);
  }
}
