import {
  ɵRuntimeError as RuntimeError,
  ɵisSameOriginPath as isSameOriginPath,
  ɵisSecureEndpoint as isSecureEndpoint,
} from 'ngx-token-refresh';

import type { ApiError } from '../errors/api-error';

/**
 * Configuration of {@link provideBffSession}: where the backend for frontend answers on this site,
 * and what happens when the session ends.
 */
export interface BffSessionConfig {
  /**
   * The path of the BFF's own routes on this site (`/login`, `/session`, `/logout`), as mounted on
   * the server (`createBff`'s `basePath`). Default: `'/bff'`.
   */
  readonly basePath?: string;
  /**
   * The paths the BFF proxies to APIs (the keys of `createBff`'s `apis`): requests under them carry
   * `x-csrf: 1` and report the end of the session. Default: `['/api']`.
   */
  readonly apiPaths?: readonly string[];
  /**
   * Called (in the injection context) once when the session of a signed-in tab ends: a call under
   * `basePath` or `apiPaths` got 401 `SessionEnded` or `NoSession` (the error's code; its message is
   * the BFF's), or another tab saw that or signed out (code `SignedOutElsewhere`). `user` and
   * `status` are already signed out then. Never called for a visitor who was not signed in, for
   * this tab's own `signOut()`, or on the server. Default: none.
   *
   * @example onSessionExpired: () => inject(Router).navigate(['/signed-out'])
   */
  readonly onSessionExpired?: (error: ApiError) => void;
  /**
   * The `BroadcastChannel` on which the tabs of this site tell each other that the session ended.
   * Default: `'ngx-token-refresh-bff'`.
   */
  readonly channelName?: string;
  /**
   * Server rendering only: the origin the render's own calls to the BFF go to, such as
   * `'http://127.0.0.1:4000'` for the server itself, instead of the page's public URL (behind a proxy
   * that ends TLS, the public URL would go out and back in, or be plain `http:`, where the session
   * cookie is never sent). `https:`, or `http:` on a loopback host. Default: none (the page's origin).
   */
  readonly serverUrl?: string;
}

/** {@link BffSessionConfig} with its defaults filled in. */
export interface ResolvedBffSessionConfig {
  readonly basePath: string;
  readonly apiPaths: readonly string[];
  readonly onSessionExpired: ((error: ApiError) => void) | undefined;
  readonly channelName: string;
  readonly serverUrl: string | null;
}

/**
 * Fills in the defaults of {@link BffSessionConfig} and, in dev mode, rejects misuse with an error
 * naming the option (production builds skip the checks: they cost bytes, and dev mode runs them first).
 */
export function resolveBffSessionConfig(config: BffSessionConfig): ResolvedBffSessionConfig {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidBffSessionConfig(config);
  const {
    basePath = '/bff',
    apiPaths = ['/api'],
    onSessionExpired,
    channelName = 'ngx-token-refresh-bff',
    serverUrl = null,
  } = config;
  const trim = (path: string) => path.replace(/\/+$/, '');
  return {
    basePath: trim(basePath),
    apiPaths: apiPaths.map(trim),
    onSessionExpired,
    channelName,
    serverUrl: serverUrl === null ? null : trim(serverUrl),
  };
}

function assertValidBffSessionConfig(config: BffSessionConfig): void {
  const fail = (problem: string): never => {
    throw new RuntimeError('InvalidOptions', `${problem} (check the options of provideBffSession)`);
  };
  if (typeof config !== 'object' || config === null) fail(`the config must be an object, got ${String(config)}`);
  const { basePath = '/bff', apiPaths = ['/api'], onSessionExpired, channelName, serverUrl } = config;
  // A path of this site with something after the slash: `/` would put the header on every request.
  const isPrefix = (path: unknown) =>
    typeof path === 'string' && isSameOriginPath(path) && !/[?#]/.test(path) && path.replace(/\/+$/, '') !== '';
  if (!isPrefix(basePath)) fail(`basePath must be a path of this site such as '/bff', got ${String(basePath)}`);
  if (!Array.isArray(apiPaths) || !apiPaths.every(isPrefix))
    fail(`apiPaths must be paths of this site such as ['/api'], got ${String(apiPaths)}`);
  if (onSessionExpired !== undefined && typeof onSessionExpired !== 'function')
    fail('onSessionExpired must be a function');
  if (channelName !== undefined && (typeof channelName !== 'string' || channelName === ''))
    fail(`channelName must be a name such as 'my-app-bff', got ${String(channelName)}`);
  if (serverUrl !== undefined) {
    let origin: string | null = null;
    try {
      origin = new URL(serverUrl).origin;
    } catch {
      // Reported below.
    }
    if (typeof serverUrl !== 'string' || origin !== serverUrl.replace(/\/+$/, '') || !isSecureEndpoint(serverUrl)) {
      fail(
        `serverUrl must be an origin with https:, or http: on a loopback host (such as 'http://127.0.0.1:4000'), got ${String(serverUrl)}`,
      );
    }
  }
}
