import { RuntimeError } from '../internal/runtime-error';
import { CrossTabSync } from './cross-tab-sync';
import type { GatePluginFactory } from '../core/gate-plugin';
import { provideGatePlugin } from '../core/provide-gate-plugin';
import { type TokenRefreshFeature, makeTokenRefreshFeature } from '../core/token-refresh-feature';

/** Options of {@link withCrossTabSync}. */
export interface CrossTabSyncOptions {
  /**
   * Share the access token between the tabs: the tab that refreshed gives its token to the others,
   * so N tabs whose tokens expire together make one refresh call. `false` only serialises the
   * refreshes (one tab at a time, none at once, so none presents a refresh token another tab has
   * just rotated) and keeps each tab's token to itself, at the cost of one refresh per tab.
   * Default: `true`.
   */
  readonly shareToken?: boolean;
  /**
   * The name of the Web Lock and of the `BroadcastChannel`: tabs with the same name coordinate. Give
   * applications on one origin that have separate sessions (separate backends) separate names.
   * Default: `'ngx-token-refresh'`.
   */
  readonly name?: string;
  /**
   * Called, in the application's injection context, when another tab signed out (its application
   * cleared its token, as at a logout) while this tab had a token. This tab's token is cleared
   * already; send people to the sign-in page here. `provideAuth` calls its `onSessionExpired`
   * instead. Default: none.
   *
   * @example onSignedOutElsewhere: () => inject(Router).navigate(['/login'])
   */
  readonly onSignedOutElsewhere?: () => void;
}

/**
 * Keeps the tabs of one origin in step: one refresh at a time across all tabs (a Web Lock), the new
 * token handed to every tab (a `BroadcastChannel`), and a sign-out in one tab signing out the others.
 * Without it, tabs whose tokens expire together each refresh with the same refresh token, and a
 * server that rotates refresh tokens may take the second one for a stolen copy and end the session.
 *
 * Where it cannot work (server rendering, a browser without Web Locks or `BroadcastChannel`, an
 * insecure context) it does nothing, and each tab refreshes on its own as without it. `provideAuth`
 * turns it on by default in the cookie flow; see {@link withNoCrossTabSync}.
 *
 * Sharing the token: every tab of the origin (any script on it, and other applications on it using the
 * same `name`) can read what is posted on the channel. A script of the origin can read a token in
 * memory anyway; if other, less trusted applications share your origin, use `shareToken: false`
 * or a separate origin.
 *
 * @usageNotes
 * ```ts
 * provideTokenRefresh(
 *   { refreshApiCall, extractToken },
 *   withCrossTabSync({ onSignedOutElsewhere: () => inject(Router).navigate(['/login']) }),
 * );
 * ```
 *
 * @throws in dev mode, when an option has the wrong type.
 */
export function withCrossTabSync(options: CrossTabSyncOptions = {}): TokenRefreshFeature<'CrossTabSync'> {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidCrossTabSyncOptions(options);
  const { shareToken = true, name = 'ngx-token-refresh', onSignedOutElsewhere } = options;
  const factory: GatePluginFactory = (gate) => CrossTabSync.create({ name, shareToken, onSignedOutElsewhere }, gate);
  return makeTokenRefreshFeature('CrossTabSync', provideGatePlugin(factory));
}

/**
 * Turns off the cross-tab sync that `provideAuth` turns on by default in the cookie flow: each tab
 * then refreshes on its own, and the server's overlap window (if it has one) is what keeps tabs from
 * signing each other out.
 *
 * @usageNotes
 * ```ts
 * provideAuth({ onSessionExpired: navigateToLogin }, withNoCrossTabSync());
 * ```
 */
export function withNoCrossTabSync(): TokenRefreshFeature<'NoCrossTabSync'> {
  return makeTokenRefreshFeature('NoCrossTabSync', []);
}

function assertValidCrossTabSyncOptions(options: CrossTabSyncOptions): void {
  const fail = (problem: string): never => {
    throw new RuntimeError('InvalidOptions', `withCrossTabSync: ${problem}`);
  };
  if (typeof options !== 'object' || options === null) fail(`options must be an object, got ${String(options)}`);
  const { shareToken, name, onSignedOutElsewhere } = options;
  if (shareToken !== undefined && typeof shareToken !== 'boolean') fail('shareToken must be true or false');
  if (name !== undefined && (typeof name !== 'string' || name === '')) fail('name must be a non-empty string');
  if (onSignedOutElsewhere !== undefined && typeof onSignedOutElsewhere !== 'function') {
    fail('onSignedOutElsewhere must be a function');
  }
}
