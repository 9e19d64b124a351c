import { InjectionToken } from '@angular/core';

import {
  type TokenRefreshOptions,
  ɵRuntimeError as RuntimeError,
  ɵisSecureTokenUrl as isSecureTokenUrl,
} from 'ngx-token-refresh';

import type { OAuthError } from './oauth-error';

/**
 * Where a refresh token is kept (an app's own choice of store, for `refreshTokenStore`): read when a
 * refresh starts (under the cross-tab lock with `withCrossTabSync()`), written with the rotated token
 * before the refresh's answer is handed on, and set to `null` at sign-out.
 *
 * @usageNotes
 * ```ts
 * const store: OAuthRefreshTokenStore = {
 *   get: () => myKeychain.read('refresh'),
 *   set: (token) => myKeychain.write('refresh', token),
 * };
 * ```
 */
export interface OAuthRefreshTokenStore {
  /** The refresh token, or `null`. */
  get(): string | null;
  /** Keeps a (rotated) refresh token, or forgets it with `null`. */
  set(token: string | null): void;
}

/**
 * Configuration of {@link provideOAuthRefresh}: the token endpoint and client, where the refresh token
 * lives, and what happens when the session ends; plus the interceptor's own options as in
 * `provideTokenRefresh` (`allowedOrigins` for an API on another origin, `setAuthHeader`,
 * `refreshOnStatus`, `maxRetryCount`, `refreshTimeout`).
 */
export interface OAuthRefreshConfig extends Pick<
  TokenRefreshOptions,
  'allowedOrigins' | 'setAuthHeader' | 'refreshOnStatus' | 'maxRetryCount' | 'refreshTimeout'
> {
  /**
   * The authorization server's token endpoint (`token_endpoint` of its discovery document), where
   * `grant_type=refresh_token` is posted. Must be `https:` (or `http:` on localhost). Required.
   */
  readonly tokenEndpoint: string;
  /** The client's `client_id` (a public client: no secret lives in a browser). Required. */
  readonly clientId: string;
  /**
   * Scopes to ask for on each refresh, to narrow them (RFC 6749 §6). Default: none sent, so the
   * server grants the scopes of the sign-in.
   */
  readonly scope?: string;
  /**
   * Where the refresh token lives. Rotating refresh tokens must never have two live copies that can
   * both be sent, or the server takes the second for a theft and ends the session (RFC 9700 §4.14.2):
   *
   * - `'memory'` (default): this tab's memory. Nothing on disk; a reload or a new tab signs in again
   *   (silently, when the identity server still has its session). Each tab is its own session, so
   *   tabs cannot spend each other's tokens. Pair it with `withCrossTabSync({ shareToken: false })`
   *   to share sign-outs, or with `withNoCrossTabSync()`.
   * - `'local'`: `localStorage`, one copy for all the tabs of the origin: it survives reloads and
   *   browser restarts (until the server expires it), and any script of the origin can read it. Read
   *   at the start of each refresh and replaced before its answer is handed on, so with
   *   `withCrossTabSync()` (which makes tabs take turns) every refresh sends the newest one.
   * - an {@link OAuthRefreshTokenStore} of the app's.
   *
   * `sessionStorage` is not offered: a duplicated tab copies it, which makes two live copies of one
   * rotating token.
   */
  readonly refreshTokenStore?: 'memory' | 'local' | OAuthRefreshTokenStore;
  /**
   * The key of the refresh token in `localStorage` with `refreshTokenStore: 'local'`. Default:
   * `ngx-token-refresh.oauth.<clientId>.refreshToken`.
   */
  readonly storageKey?: string;
  /**
   * The revocation endpoint (RFC 7009, `revocation_endpoint` of the discovery document): when given,
   * `OAuthSession.signOut()` revokes the refresh token there. Default: none (the tokens are only
   * forgotten; they stay valid at the server until they expire).
   */
  readonly revocationEndpoint?: string;
  /**
   * Called (in the injection context) when the session ends without the app asking: the server refused
   * a refresh, or another tab signed out (`signed_out_elsewhere`), after the tokens were forgotten.
   * Not called for a refresh that failed for a passing reason (the session is kept), nor when
   * `OAuthSession.restore()` finds no session. Default: none.
   *
   * @example onSessionExpired: () => inject(Router).navigate(['/signed-out'])
   */
  readonly onSessionExpired?: (error: OAuthError) => void;
}

/** {@link OAuthRefreshConfig} as the session uses it: the store made, the defaults in. */
export interface ResolvedOAuthRefreshConfig {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly scope: string | undefined;
  readonly store: OAuthRefreshTokenStore;
  /** Whether the store is shared by the tabs (anything but `'memory'`). */
  readonly sharedStore: boolean;
  readonly revocationEndpoint: string | undefined;
  readonly onSessionExpired: ((error: OAuthError) => void) | undefined;
}

/** The resolved configuration of {@link provideOAuthRefresh}, for its `OAuthSession`. */
export const OAUTH_REFRESH_CONFIG = new InjectionToken<ResolvedOAuthRefreshConfig>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'OAUTH_REFRESH_CONFIG' : '',
  {
    providedIn: 'root',
    factory: () => {
      throw new RuntimeError(
        'MissingProvider',
        typeof ngDevMode !== 'undefined' &&
          ngDevMode &&
          'OAuthSession needs provideOAuthRefresh({ tokenEndpoint, clientId }) in the application providers',
      );
    },
  },
);

/** Fills in the defaults and makes the store; in dev mode, rejects misuse naming the option. */
export function resolveOAuthRefreshConfig(config: OAuthRefreshConfig): ResolvedOAuthRefreshConfig {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidConfig(config);
  const { tokenEndpoint, clientId, scope, refreshTokenStore = 'memory', storageKey, revocationEndpoint } = config;
  return {
    tokenEndpoint,
    clientId,
    scope,
    store:
      refreshTokenStore === 'memory'
        ? memoryStore()
        : refreshTokenStore === 'local'
          ? localStore(storageKey ?? `ngx-token-refresh.oauth.${clientId}.refreshToken`)
          : refreshTokenStore,
    sharedStore: refreshTokenStore !== 'memory',
    revocationEndpoint,
    onSessionExpired: config.onSessionExpired,
  };
}

function memoryStore(): OAuthRefreshTokenStore {
  let token: string | null = null;
  return { get: () => token, set: (value) => void (token = value) };
}

/**
 * `localStorage` under `key`. Where it cannot be used (the server, storage blocked by the browser, a
 * full quota) reads give `null` and writes are lost: the session then lasts as long as its access token.
 */
function localStore(key: string): OAuthRefreshTokenStore {
  const storage = (): Storage | null => {
    try {
      return typeof localStorage === 'undefined' ? null : localStorage;
    } catch {
      return null;
    }
  };
  return {
    get: () => {
      try {
        return storage()?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    set: (token) => {
      try {
        if (token === null) storage()?.removeItem(key);
        else storage()?.setItem(key, token);
      } catch {
        // Quota exceeded or storage disabled: nothing else to do; the next refresh finds no token.
      }
    },
  };
}

function assertValidConfig(config: OAuthRefreshConfig): void {
  const fail = (problem: string): never => {
    throw new RuntimeError('InvalidOptions', `${problem} (check the options of provideOAuthRefresh)`);
  };
  if (typeof config !== 'object' || config === null)
    fail('the config must be an object with tokenEndpoint and clientId');
  const { tokenEndpoint, clientId, scope, refreshTokenStore, storageKey, revocationEndpoint, onSessionExpired } =
    config;
  for (const [name, url] of [
    ['tokenEndpoint', tokenEndpoint],
    ['revocationEndpoint', revocationEndpoint],
  ] as const) {
    if (url === undefined && name === 'revocationEndpoint') continue;
    if (typeof url !== 'string' || url === '') {
      fail(`${name} must be the URL of the endpoint, got ${String(url)}`);
    } else if (!isSecureEndpoint(url)) {
      fail(`${name} ${url} would receive refresh tokens in the clear: use https (http only on localhost)`);
    }
  }
  if (typeof clientId !== 'string' || clientId === '')
    fail(`clientId must be a non-empty string, got ${String(clientId)}`);
  if (scope !== undefined && typeof scope !== 'string') fail('scope must be a string such as "openid offline_access"');
  if (
    refreshTokenStore !== undefined &&
    refreshTokenStore !== 'memory' &&
    refreshTokenStore !== 'local' &&
    (typeof refreshTokenStore?.get !== 'function' || typeof refreshTokenStore.set !== 'function')
  ) {
    fail(
      `refreshTokenStore must be 'memory', 'local' or an object with get() and set(token), got ${String(refreshTokenStore)} (sessionStorage is not offered: a duplicated tab copies it)`,
    );
  }
  if (storageKey !== undefined && (typeof storageKey !== 'string' || storageKey === '')) {
    fail('storageKey must be a non-empty string');
  }
  if (onSessionExpired !== undefined && typeof onSessionExpired !== 'function')
    fail('onSessionExpired must be a function');
}

/** A relative URL (the app's own origin, judged by the browser), or https, or http on a loopback host. */
function isSecureEndpoint(url: string): boolean {
  try {
    return isSecureTokenUrl(new URL(url, 'https://relative.invalid'));
  } catch {
    return false;
  }
}
