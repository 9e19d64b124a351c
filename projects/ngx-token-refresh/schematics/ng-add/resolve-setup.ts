import { SchematicsException } from '@angular-devkit/schematics';

import type { NgAddOptions } from './schema';

/** What to write, from the options. */
export interface Setup {
  readonly kind: 'auth' | 'custom';
  /** The endpoint the refresh is POSTed to. */
  readonly refreshUrl: string;
  /** `provideAuth`'s `baseUrl` (setup `'auth'`): `refreshUrl` without its `/refresh`. */
  readonly baseUrl: string;
  /** The origin of an absolute `refreshUrl`, or null for a path of the app's own origin. */
  readonly origin: string | null;
}

/** A path (`/auth/refresh`) or an `http(s)` URL; no query, fragment, quotes, backslashes or spaces. */
const URL_PATTERN = /^(https?:\/\/[^\s/?#'"`\\]+)?\/[^\s?#'"`\\]*$/;

/** Checks the options and works out what they mean. */
export function resolveSetup(options: NgAddOptions): Setup {
  const kind = options.setup ?? 'auth';
  if (kind !== 'auth' && kind !== 'custom') {
    throw new SchematicsException(`ngx-token-refresh: --setup must be 'auth' or 'custom', got '${String(kind)}'.`);
  }
  const given = (options.refreshUrl ?? '/auth/refresh').trim();
  const match = URL_PATTERN.exec(given);
  if (!match) {
    throw new SchematicsException(
      `ngx-token-refresh: --refresh-url must be a path such as /auth/refresh or an http(s) URL without a ` +
        `query or quotes, got '${given}'.`,
    );
  }
  const refreshUrl = given.length > 1 ? given.replace(/\/+$/, '') : given;
  let baseUrl = '';
  if (kind === 'auth') {
    if (!refreshUrl.endsWith('/refresh')) {
      throw new SchematicsException(
        `ngx-token-refresh: with --setup auth, provideAuth POSTs to <baseUrl>/refresh, so --refresh-url must end ` +
          `in /refresh (got '${refreshUrl}'). For another endpoint, use --setup custom.`,
      );
    }
    baseUrl = refreshUrl.slice(0, -'/refresh'.length);
  }
  return { kind, refreshUrl, baseUrl, origin: match[1] ?? null };
}
