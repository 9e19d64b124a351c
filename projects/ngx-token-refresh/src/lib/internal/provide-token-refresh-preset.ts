import { type EnvironmentProviders, InjectionToken, makeEnvironmentProviders } from '@angular/core';

import { provideTokenRefreshFrom } from '../core/provide-token-refresh';
import type { TokenRefreshFeature } from '../core/token-refresh-feature';
import type { TokenRefreshOptions } from '../core/token-refresh-options';

/**
 * What a preset of the library (`provideAuth`, `provideOAuthRefresh`) adds to `provideTokenRefresh`:
 * the function the application called, and what the preset knows that the features need to hear.
 */
export interface TokenRefreshPreset {
  /** The function the application called: the errors about its options and features name it. */
  readonly caller: string;
  /**
   * The refresh token is one copy shared by the tabs (the OAuth preset with a shared store): with
   * `withCrossTabSync()`, a tab that cannot get the lock within `refreshTimeout` then fails its
   * refresh with `TokenRefreshError` `Timeout` (a passing failure: the session is kept) instead of
   * refreshing without the lock, which would send the same refresh token as the tab holding it.
   * Default: `false`.
   */
  readonly refreshOnlyUnderLock?: boolean;
  /**
   * `withIdleTimeout()`'s `signOut` when the application gave none: how the preset tells its server
   * (`provideAuth`: its logout call). Default: none.
   */
  readonly idleSignOut?: (token: string) => void;
}

/** The preset that registered the interceptor in this injector, if any; read by the features. */
export const TOKEN_REFRESH_PRESET = new InjectionToken<TokenRefreshPreset>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'TOKEN_REFRESH_PRESET' : '',
);

/**
 * `provideTokenRefresh(options, ...features)` on behalf of a preset: the errors name
 * `preset.caller`, and the features find `preset` (see `TokenRefreshPreset`).
 */
export function provideTokenRefreshPreset(
  preset: TokenRefreshPreset,
  options: TokenRefreshOptions,
  features: readonly TokenRefreshFeature[],
): EnvironmentProviders {
  return makeEnvironmentProviders([
    provideTokenRefreshFrom(preset.caller, options, features),
    { provide: TOKEN_REFRESH_PRESET, useValue: preset },
  ]);
}
