import { InjectionToken } from '@angular/core';

import {
  type TokenRefreshOptions,
  ɵRuntimeError as RuntimeError,
  ɵisSecureEndpoint as isSecureEndpoint,
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
   * `grant_type=refresh_token` is posted. Must be `https:` (or `http:` on a loopback host), in
   * production builds too. Required.
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
   *   tabs cannot spend each other's tokens. With `withCrossTabSync()`, tabs that have a session
   *   share access tokens and sign-outs; a tab without one takes no other tab's token.
   * - `'local'`: `localStorage`, one copy for all the tabs of the origin: it survives reloads and
   *   browser restarts (until the server expires it), and any script of the origin can read it. Read
   *   at the start of each refresh and replaced before its answer is handed on, so with
   *   `withCrossTabSync()` (which makes tabs take turns, and then never lets one refresh without the
   *   lock) every refresh sends the newest one.
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
   * Called (in the injection context) once when the session ends without the app asking: the server
   * refused a refresh, or another tab signed out (`signed_out_elsewhere`), after the tokens were
   * forgotten. Not called for a refresh that failed for a passing reason (the session is kept), nor
   * when `OAuthSession.restore()` finds no session, nor for a 401 when there is no session (never
   * signed in, or ended already: the refresh finds no refresh token, and the call fails with an
   * `OAuthError` `no_refresh_token`). Default: none.
   *
   * @example onSessionExpired: () => inject(Router).navigate(['/signed-out'])
   */
  readonly onSessionExpired?: (error: OAuthError) => void;
}

/** {@link OAuthRefreshConfig} with the defaults in, checked. */
export interface ResolvedOAuthRefreshConfig {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly scope: string | undefined;
  /** Makes the store of one application (each injector its own: a memory store holds one session). */
  readonly makeStore: () => OAuthRefreshTokenStore;
  /** Whether the store is shared by the tabs (anything but `'memory'`). */
  readonly sharedStore: boolean;
  readonly revocationEndpoint: string | undefined;
  readonly onSessionExpired: ((error: OAuthError) => void) | undefined;
}

/** The configuration of one application's OAuth session, with its store made. */
export interface OAuthRefreshSettings extends ResolvedOAuthRefreshConfig {
  readonly store: OAuthRefreshTokenStore;
  /** The `token_type` the tokens must have: `'dpop'` with `withDPoP()`, else `'bearer'`. */
  readonly tokenType: 'bearer' | 'dpop';
}

/** The configuration of {@link provideOAuthRefresh} in this application, for its `OAuthSession`. */
export const OAUTH_REFRESH_CONFIG = new InjectionToken<OAuthRefreshSettings>(
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

/**
 * Fills in the defaults; in dev mode, rejects misuse naming the option. An absolute endpoint that is
 * not `https:` (nor `http:` on a loopback host) is refused in production builds too: refresh tokens
 * must never travel in the clear, and a production configuration is where such a typo hides.
 */
export function resolveOAuthRefreshConfig(config: OAuthRefreshConfig): ResolvedOAuthRefreshConfig {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidConfig(config);
  const { tokenEndpoint, clientId, scope, refreshTokenStore = 'memory', storageKey, revocationEndpoint } = config;
  for (const url of [tokenEndpoint, revocationEndpoint]) {
    if (typeof url === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(url) && !isSecureEndpoint(url)) {
      throw new RuntimeError('InvalidOptions', typeof ngDevMode !== 'undefined' && ngDevMode && `${url} is not https`);
    }
  }
  return {
    tokenEndpoint,
    clientId,
    scope,
    makeStore: () =>
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
 * `localStorage` under `key`. Where it cannot be used (the server, storage blocked by the browser)
 * reads give `null`: the session then lasts as long as its access token. A write that fails (a full
 * quota) removes the key, so that a spent refresh token is never left to be sent again.
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
        try {
          storage()?.removeItem(key);
        } catch {
          // Storage disabled altogether: there is nothing in it to send again.
        }
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
