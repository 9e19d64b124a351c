import { type EnvironmentProviders, InjectionToken, makeEnvironmentProviders } from '@angular/core';

import { ɵRuntimeError as RuntimeError } from 'ngx-token-refresh';

/**
 * Where the users API lives and how its version is chosen, for {@link provideUsersApi}.
 *
 * @usageNotes
 * ```ts
 * provideUsersApi({ baseUrl: 'https://api.example.com', versioning: 'accept', vendor: 'example' });
 * ```
 */
export interface UsersApiConfig {
  /** Base URL of the API, relative or absolute; a trailing slash is fine. Default: `'/api'`. */
  readonly baseUrl?: string;
  /** Major version of the API. Default: `1`. */
  readonly version?: number;
  /**
   * How the version is chosen: `'path'` calls `{baseUrl}/v{version}/users`; `'accept'` calls
   * `{baseUrl}/users` with `Accept: application/vnd.{vendor}.v{version}+json`. Default: `'path'`.
   */
  readonly versioning?: 'path' | 'accept';
  /** Vendor name in the media type; required with `versioning: 'accept'`. */
  readonly vendor?: string;
}

/** {@link UsersApiConfig} with its defaults filled in. */
export interface ResolvedUsersApiConfig {
  /** The users collection, e.g. `/api/v1/users`. */
  readonly usersUrl: string;
  /** The `Accept` header to send, or `null` to leave HttpClient's default. */
  readonly accept: string | null;
}

/** The resolved users API configuration; defaults to `/api/v1/users` without provideUsersApi. */
export const USERS_API_CONFIG = new InjectionToken<ResolvedUsersApiConfig>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'USERS_API_CONFIG' : '',
  { providedIn: 'root', factory: () => resolveUsersApiConfig({}) },
);

/**
 * Configures `UsersService`: base URL, API version and versioning style. Without it the service
 * calls `/api/v1/users`.
 *
 * @usageNotes
 * ```ts
 * bootstrapApplication(App, { providers: [provideHttpClient(), provideUsersApi({ baseUrl: '/api', version: 1 })] });
 * ```
 *
 * @throws in dev mode, when the version is not a positive whole number, or `'accept'` versioning has no
 *   valid vendor.
 */
export function provideUsersApi(config: UsersApiConfig = {}): EnvironmentProviders {
  return makeEnvironmentProviders([{ provide: USERS_API_CONFIG, useValue: resolveUsersApiConfig(config) }]);
}

function resolveUsersApiConfig(config: UsersApiConfig): ResolvedUsersApiConfig {
  // Production builds skip the checks: they cost bytes, and dev mode runs them first.
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidUsersApiConfig(config);
  const { baseUrl = '/api', version = 1, versioning = 'path', vendor } = config;
  const base = baseUrl.replace(/\/+$/, '');
  return versioning === 'accept'
    ? { usersUrl: `${base}/users`, accept: `application/vnd.${vendor}.v${version}+json` }
    : { usersUrl: `${base}/v${version}/users`, accept: null };
}

function assertValidUsersApiConfig({ baseUrl = '/api', version = 1, versioning = 'path', vendor }: UsersApiConfig) {
  const fail = (problem: string): never => {
    throw new RuntimeError('InvalidOptions', `${problem} (check the options of provideUsersApi)`);
  };
  if (typeof baseUrl !== 'string') fail('baseUrl must be a string such as "/api"');
  if (!Number.isSafeInteger(version) || version < 1)
    fail(`version must be a whole number from 1, got ${String(version)}`);
  if (versioning !== 'path' && versioning !== 'accept')
    fail(`versioning must be 'path' or 'accept', got ${String(versioning)}`);
  // The vendor goes into a media type: keep it to the characters a media-type token allows.
  if (versioning === 'accept' && (typeof vendor !== 'string' || !/^[a-z0-9][a-z0-9.+-]*$/i.test(vendor))) {
    fail(
      `versioning 'accept' needs a vendor such as 'example' (letters, digits, '.', '+', '-'), got ${JSON.stringify(vendor)}`,
    );
  }
}
