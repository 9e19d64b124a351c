import { InjectionToken } from '@angular/core';

import { type TokenRefreshOptions, ɵRuntimeError as RuntimeError } from 'ngx-token-refresh';

import type { ApiError } from '../errors/api-error';

/**
 * Where the app keeps the refresh token in the body flow. Any storage the app chooses (memory,
 * `sessionStorage`, a native keychain); never `localStorage` for anything long-lived.
 *
 * @usageNotes
 * ```ts
 * const store: RefreshTokenStore = {
 *   get: () => sessionStorage.getItem('refreshToken'),
 *   set: (token) => (token ? sessionStorage.setItem('refreshToken', token) : sessionStorage.removeItem('refreshToken')),
 * };
 * ```
 */
export interface RefreshTokenStore {
  /** The stored refresh token, or `null`. */
  get(): string | null;
  /** Stores a (rotated) refresh token, or removes it with `null`. */
  set(token: string | null): void;
}

/**
 * The options of the interceptor that `provideAuth` leaves to the app: where tokens may go
 * (`allowedOrigins`), how they are written (`setAuthHeader`), which statuses start a refresh
 * (`refreshOnStatus`), how often a request is repeated (`maxRetryCount`) and how long a refresh may
 * take (`refreshTimeout`). Defaults and rules are those of `TokenRefreshOptions`.
 */
export type AuthInterceptorOptions = Pick<
  TokenRefreshOptions,
  'allowedOrigins' | 'setAuthHeader' | 'refreshOnStatus' | 'maxRetryCount' | 'refreshTimeout'
>;

/**
 * Configuration of the authentication client, for {@link provideAuth}: the service's endpoints and
 * flow, where tokens live, what happens when the session ends, and the interceptor's own options
 * (see {@link AuthInterceptorOptions}).
 */
export interface AuthConfig extends AuthInterceptorOptions {
  /** Base URL of `/login`, `/refresh` and `/logout`; relative or absolute. Default: `'/auth'`. */
  readonly baseUrl?: string;
  /**
   * `'cookie'` (recommended): the refresh token is an HttpOnly cookie the browser sends with
   * `POST {baseUrl}/refresh`; no script ever sees it. `'body'`: the client sends
   * `{ refreshToken }` read from `refreshTokenStore`, and stores the rotated one the server returns.
   * Default: `'cookie'`.
   */
  readonly refreshFlow?: 'cookie' | 'body';
  /** Where the refresh token lives in the body flow; required with `refreshFlow: 'body'`. */
  readonly refreshTokenStore?: RefreshTokenStore;
  /**
   * Where the access token lives: `'memory'` (gone on reload; restored by a refresh in the cookie
   * flow) or `'session'` (`sessionStorage`: this tab only, gone when it closes). Never
   * `localStorage`. Default: `'memory'`.
   */
  readonly tokenStorage?: 'memory' | 'session';
  /** Call `POST {baseUrl}/logout` on logout (local state is cleared either way). Default: `true`. */
  readonly logoutEndpoint?: boolean;
  /** The app's login route, where `authGuard` and `navigateToLogin` send people. Default: `'/login'`. */
  readonly loginPath?: string;
  /**
   * Called (in the injection context) when the session ends because the server refused a refresh
   * (a refresh it could not answer, such as no network, a timeout or a 5xx, keeps the session), after
   * the session was cleared, when another tab signed out (with `withCrossTabSync()`; the error's
   * code is then `SignedOutElsewhere`), and when nobody was active for the idle time (with
   * `withIdleTimeout()`; code `IdleTimeout`, and `navigateToLogin` says `?reason=idle`). Not called when `restoreSession()`
   * (or `authGuard`) fails to bring back a session that was not there. Pass `navigateToLogin` to send people to `loginPath` with
   * `?reason=expired&returnUrl=` the current URL. Default: none (the session is cleared; `authGuard`
   * asks for a login at the next guarded navigation).
   *
   * @example onSessionExpired: navigateToLogin
   */
  readonly onSessionExpired?: (error: ApiError) => void;
}

/** {@link AuthConfig} with its defaults filled in, without the interceptor's options. */
export type ResolvedAuthConfig = Required<
  Omit<AuthConfig, 'refreshTokenStore' | 'onSessionExpired' | keyof AuthInterceptorOptions>
> &
  Pick<AuthConfig, 'refreshTokenStore' | 'onSessionExpired'>;

/**
 * The resolved configuration of the authentication client. Internal, not part of the public API: the
 * public API exports it as `ɵAUTH_CONFIG` only for the library's own `ngx-token-refresh/router`.
 */
export const AUTH_CONFIG = new InjectionToken<ResolvedAuthConfig>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'AUTH_CONFIG' : '',
  {
    providedIn: 'root',
    factory: () => {
      throw new RuntimeError(
        'MissingProvider',
        typeof ngDevMode !== 'undefined' &&
          ngDevMode &&
          'AuthClient and authGuard need provideAuth({...}) in the application providers',
      );
    },
  },
);

/**
 * Fills in the defaults of {@link AuthConfig} and, in dev mode, rejects misuse with an error naming
 * the option (production builds skip the checks: they cost bytes, and dev mode runs them first).
 */
export function resolveAuthConfig(config: AuthConfig): ResolvedAuthConfig {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidAuthConfig(config);
  const {
    baseUrl = '/auth',
    refreshFlow = 'cookie',
    refreshTokenStore,
    tokenStorage = 'memory',
    logoutEndpoint = true,
    loginPath = '/login',
    onSessionExpired,
  } = config;
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    refreshFlow,
    refreshTokenStore,
    tokenStorage,
    logoutEndpoint,
    loginPath,
    onSessionExpired,
  };
}

function assertValidAuthConfig({
  baseUrl = '/auth',
  refreshFlow = 'cookie',
  refreshTokenStore,
  tokenStorage = 'memory',
  onSessionExpired,
}: AuthConfig): void {
  const fail = (problem: string): never => {
    throw new RuntimeError('InvalidOptions', `${problem} (check the options of provideAuth)`);
  };
  if (typeof baseUrl !== 'string') fail('baseUrl must be a string such as "/auth"');
  if (refreshFlow !== 'cookie' && refreshFlow !== 'body')
    fail(`refreshFlow must be 'cookie' or 'body', got ${String(refreshFlow)}`);
  if (
    refreshFlow === 'body' &&
    (typeof refreshTokenStore?.get !== 'function' || typeof refreshTokenStore.set !== 'function')
  ) {
    fail("refreshFlow 'body' needs a refreshTokenStore with get() and set(token)");
  }
  if (tokenStorage !== 'memory' && tokenStorage !== 'session') {
    fail(`tokenStorage must be 'memory' or 'session' (never localStorage), got ${String(tokenStorage)}`);
  }
  if (onSessionExpired !== undefined && typeof onSessionExpired !== 'function')
    fail('onSessionExpired must be a function');
}
