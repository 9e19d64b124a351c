import type { HttpRequest, HttpResponse } from '@angular/common/http';
import type { ObservableInput } from 'rxjs';

import { RuntimeError, warnRuntime } from '../internal/runtime-error';
import { isSecureTokenUrl } from './create-token-url-policy';
import type { TokenRefreshOptions } from './token-refresh-options';

/** {@link TokenRefreshOptions} with every default filled in. */
export interface ResolvedTokenRefreshOptions {
  readonly refreshApiCall: () => ObservableInput<HttpResponse<unknown>>;
  readonly extractToken: (response: HttpResponse<unknown>) => string;
  readonly extractExpiresIn: ((response: HttpResponse<unknown>) => number | null | undefined) | undefined;
  /** `undefined`: the default, `Authorization: Bearer <token>`, which the gate writes itself. */
  readonly setAuthHeader: ((request: HttpRequest<unknown>, token: string) => HttpRequest<unknown>) | undefined;
  readonly refreshOnStatus: readonly number[];
  readonly maxRetryCount: number;
  readonly onRefreshSuccess: ((token: string, response: HttpResponse<unknown>) => void) | undefined;
  readonly onRefreshFailure: ((error: unknown) => void) | undefined;
  readonly refreshTimeout: number;
  readonly attachToken: boolean;
  readonly allowedOrigins: readonly (string | RegExp)[];
}

/**
 * Fills in the defaults of {@link TokenRefreshOptions} and, in dev mode, rejects misuse with an
 * error that names the option, the fix and `caller` (the `provideX` function given the options).
 */
export function resolveTokenRefreshOptions(options: TokenRefreshOptions, caller: string): ResolvedTokenRefreshOptions {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidOptions(options, caller);
  // The defaults, then every option given; one given as `undefined` (provideAuth passes its config's
  // through) keeps its default. Written as a loop, not key by key: the same in fewer bytes.
  const resolved: Record<string, unknown> = {
    refreshOnStatus: [401],
    maxRetryCount: 1,
    refreshTimeout: 30_000,
    attachToken: true,
    allowedOrigins: [],
  };
  for (const [name, value] of Object.entries(options)) if (value !== undefined) resolved[name] = value;
  return resolved as unknown as ResolvedTokenRefreshOptions;
}

/** Dev mode: throws for an option that is missing or has the wrong type, naming it and the fix. */
function assertValidOptions(options: TokenRefreshOptions, caller: string): void {
  const fail = (problem: string) => {
    throw new RuntimeError('InvalidOptions', `${problem} (check the options of ${caller})`);
  };
  if (typeof options !== 'object' || options === null)
    fail('options must be an object with refreshApiCall and extractToken');
  if (typeof options.refreshApiCall !== 'function')
    fail('refreshApiCall is required: a function returning the refresh response');
  if (typeof options.extractToken !== 'function')
    fail('extractToken is required: a function reading the new token from the refresh response');
  for (const name of ['extractExpiresIn', 'setAuthHeader', 'onRefreshSuccess', 'onRefreshFailure'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') fail(`${name} must be a function`);
  }
  const { refreshOnStatus, maxRetryCount, refreshTimeout, attachToken, allowedOrigins } = options;
  if (refreshOnStatus !== undefined) {
    if (!Array.isArray(refreshOnStatus) || refreshOnStatus.length === 0)
      fail('refreshOnStatus must be a non-empty array, e.g. [401]');
    for (const code of refreshOnStatus) {
      if (!Number.isInteger(code) || code < 100 || code > 599)
        fail(`refreshOnStatus holds ${String(code)}, which is not an HTTP status (100-599)`);
    }
  }
  if (maxRetryCount !== undefined && (!Number.isInteger(maxRetryCount) || maxRetryCount < 0)) {
    fail(`maxRetryCount must be a whole number of 0 or more, got ${String(maxRetryCount)}`);
  }
  // setTimeout holds at most 2^31 - 1 ms; a larger delay would fire at once.
  const MAX_TIMEOUT = 2 ** 31 - 1;
  if (
    refreshTimeout !== undefined &&
    refreshTimeout !== Infinity &&
    (typeof refreshTimeout !== 'number' || !(refreshTimeout > 0 && refreshTimeout <= MAX_TIMEOUT))
  ) {
    fail(
      `refreshTimeout must be between 1 and ${MAX_TIMEOUT} milliseconds, or Infinity, got ${String(refreshTimeout)}`,
    );
  }
  if (typeof refreshTimeout === 'number' && refreshTimeout < 1000) {
    warnRuntime('ShortRefreshTimeout', `refreshTimeout is ${refreshTimeout} ms; it is in milliseconds (30000 is 30 s)`);
  }
  if (attachToken !== undefined && typeof attachToken !== 'boolean') fail('attachToken must be true or false');
  if (allowedOrigins !== undefined) {
    if (!Array.isArray(allowedOrigins)) fail('allowedOrigins must be an array of origins or regular expressions');
    for (const origin of allowedOrigins) {
      if (origin instanceof RegExp) {
        // An unanchored /api\.example\.com/ also matches https://api.example.com.evil.example.
        if (!origin.source.startsWith('^') || !origin.source.endsWith('$')) {
          fail(`allowedOrigins holds ${String(origin)}: anchor patterns with ^ and $ so look-alike hosts do not match`);
        }
        continue;
      }
      if (typeof origin === 'string' && origin.includes('*')) {
        fail(
          `allowedOrigins holds ${origin}: wildcards are not origins; use an anchored RegExp such as /^https:\\/\\/[a-z0-9-]+\\.example\\.com$/`,
        );
      }
      const url = typeof origin === 'string' ? parseOrigin(origin) : null;
      if (!url) {
        fail(
          `allowedOrigins holds ${JSON.stringify(origin)}, which is not an origin such as 'https://api.example.com'`,
        );
      } else if (!isSecureTokenUrl(url)) {
        fail(
          `allowedOrigins holds ${origin}, which can never receive a token: tokens travel over https only (or http on localhost)`,
        );
      }
    }
  }
}

/** The URL of `value` when it is an origin alone (scheme, host, optional port and trailing slash). */
function parseOrigin(value: string): URL | null {
  try {
    const url = new URL(value);
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    return url.origin !== 'null' && bare && /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/?$/i.test(value) ? url : null;
  } catch {
    return null;
  }
}
