import { SchematicsException } from '@angular-devkit/schematics';

import type { NgAddOptions } from './schema';

/** The module this schematic installs: the interceptor and its features. */
export const LIBRARY = 'ngx-token-refresh';
/** Its entry point for the client of the service (`provideAuth`, `AuthClient`). */
export const LIBRARY_CLIENT = 'ngx-token-refresh/client';
/** Its entry point for the parts that need the router (`navigateToLogin`, `authGuard`). */
export const LIBRARY_ROUTER = 'ngx-token-refresh/router';
export const HTTP = '@angular/common/http';
export const CORE = '@angular/core';
export const ROUTER = '@angular/router';

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

/** Gives the name under which to write a symbol of a module (and arranges its import). */
export type SymbolRef = (symbol: string, module: string) => string;

/** A single-quoted TypeScript string literal (the URL pattern already keeps quotes out). */
function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** `provideHttpClient(withInterceptors([tokenRefreshInterceptor]))`, with `withFetch()` first when asked. */
export function httpClientCode(ref: SymbolRef, fetch = false): string {
  // In this order: the imports are written in the order the symbols are named.
  const provide = ref('provideHttpClient', HTTP);
  const withFetch = fetch ? `${ref('withFetch', HTTP)}(), ` : '';
  return `${provide}(${withFetch}${interceptorsFeatureCode(ref)})`;
}

/** `withInterceptors([tokenRefreshInterceptor])`. */
export function interceptorsFeatureCode(ref: SymbolRef): string {
  return `${ref('withInterceptors', HTTP)}([${ref('tokenRefreshInterceptor', LIBRARY)}])`;
}

/**
 * `provideAuth({...}, withCrossTabSync())` or `provideTokenRefresh({...})`. `provideAuth` uses the
 * refresh cookie, which every tab sends, so its tabs take turns to refresh.
 *
 * @param withRouter whether the app has a router: then a session that ends sends people to the login page.
 * @param indent the indentation of the provider in its array; multi-line code is indented from there.
 */
export function providerCode(setup: Setup, ref: SymbolRef, withRouter: boolean, indent: string): string {
  if (setup.kind === 'auth') {
    // In this order: the imports are written in the order the symbols are named.
    const provideAuth = ref('provideAuth', LIBRARY_CLIENT);
    const onSessionExpired = withRouter ? `, onSessionExpired: ${ref('navigateToLogin', LIBRARY_ROUTER)}` : '';
    return `${provideAuth}({ baseUrl: ${quote(setup.baseUrl)}${onSessionExpired} }, ${ref('withCrossTabSync', LIBRARY)}())`;
  }
  const provideTokenRefresh = ref('provideTokenRefresh', LIBRARY);
  const inner = `${indent}  `;
  return [
    `${provideTokenRefresh}({`,
    `${inner}refreshApiCall: () =>`,
    `${inner}  ${ref('inject', CORE)}(${ref('HttpClient', HTTP)}).post(${quote(setup.refreshUrl)}, null, ` +
      `{ observe: 'response', withCredentials: true }),`,
    `${inner}extractToken: (response) => (response.body as { accessToken: string }).accessToken,`,
    `${indent}})`,
  ].join('\n');
}

/** The providers to add by hand, for the messages of a refusal. */
export function manualInstructions(setup: Setup): string {
  const plain: SymbolRef = (symbol) => symbol;
  const auth = setup.kind === 'auth';
  const imports = [
    `provideHttpClient, withInterceptors${auth ? '' : ', HttpClient'} from '${HTTP}'`,
    ...(auth ? [] : [`inject from '${CORE}'`]),
    `tokenRefreshInterceptor${auth ? ', withCrossTabSync' : ', provideTokenRefresh'} from '${LIBRARY}'`,
    ...(auth ? [`provideAuth from '${LIBRARY_CLIENT}'`, `navigateToLogin from '${LIBRARY_ROUTER}'`] : []),
  ];
  return (
    `Add these to the application's providers by hand (see the README of ngx-token-refresh, "Set up"):\n` +
    `  ${httpClientCode(plain)},\n` +
    `  ${providerCode(setup, plain, auth, '  ')},\n` +
    `importing ${imports.slice(0, -1).join('; ')} and ${imports.at(-1)}. Keep interceptors that rewrite URLs ` +
    `before tokenRefreshInterceptor, and logging or timing interceptors after it.`
  );
}
