import { BffError } from './bff-error';
import type { BffSessionStore } from './bff-session-store';
import { createBffMemoryStore } from './create-bff-memory-store';
import { isLoopbackHttp } from './is-loopback-http';

/**
 * Options of {@link createBff}: the provider and the client registered there, where the app is, which
 * APIs the browser may call through the BFF, where the sessions live and how long.
 *
 * @usageNotes
 * ```ts
 * const bff = createBff({
 *   issuer: 'https://login.example',
 *   clientId: 'shop',
 *   clientSecret: process.env.OIDC_CLIENT_SECRET,
 *   baseUrl: 'https://shop.example',
 *   apis: { '/api': 'https://api.shop.example/v1' },
 *   store: createBffPostgresStore({ pool }),
 * });
 * ```
 */
export interface BffOptions {
  /**
   * The OpenID Provider's issuer identifier; its `/.well-known/openid-configuration` is read once per
   * instance, on first use. `https:` (or `http:` on a loopback host). Required.
   */
  readonly issuer: string;
  /** The client's `client_id` at the provider. Required. */
  readonly clientId: string;
  /**
   * The client's secret: the BFF is a confidential client, the reason it exists. Without one, it signs
   * in as a public client (PKCE alone).
   */
  readonly clientSecret?: string;
  /**
   * How the client authenticates at the token and revocation endpoints. Default
   * `'client_secret_basic'` with a `clientSecret`, `'none'` without.
   */
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /**
   * The app's public origin as the browser sees it, such as `'https://shop.example'`: the redirect URI
   * is `<baseUrl><basePath>/callback` (register it at the provider), and requests whose `Origin` is
   * another are refused. `https:`, or `http:` on a loopback host: the session cookie is `__Host-`,
   * which needs `Secure`. Required.
   */
  readonly baseUrl: string;
  /**
   * The APIs the browser calls through the BFF, by path prefix of this site: `{ '/api': 'https://api.example/v1' }`
   * sends `GET /api/users?page=2` to `https://api.example/v1/users?page=2` with the session's access
   * token. Targets are `https:` (or `http:` on a loopback host). Default: none (sign-in and
   * `<basePath>/session` only).
   */
  readonly apis?: Readonly<Record<string, string>>;
  /**
   * Where the sessions live. Default `createBffMemoryStore()`, for one instance; use
   * `createBffPostgresStore({ pool })` when several instances serve the app.
   */
  readonly store?: BffSessionStore;
  /** The scopes of the sign-in. Must include `openid`. Default `'openid offline_access'`. */
  readonly scope?: string;
  /**
   * Extra parameters of the authorization request, such as `{ prompt: 'consent' }` (which some
   * providers, oidc-provider among them, need before they issue a refresh token for
   * `offline_access`) or `{ audience: 'https://api.example' }`. The protocol's own parameters
   * (`state`, `nonce`, `redirect_uri`, ...) are the BFF's and refused here. Default: none.
   */
  readonly authorizationParams?: Readonly<Record<string, string>>;
  /** Where the BFF's own routes live: `<basePath>/login`, `/callback`, `/session`, `/logout`. Default `'/bff'`. */
  readonly basePath?: string;
  /**
   * Where the provider sends the browser after its end-session page (register it there); `null` for
   * none (the provider shows its own page). Default `<baseUrl>/`.
   */
  readonly postLogoutRedirectUri?: string | null;
  /** Milliseconds a session lives without a request, across all tabs. Default 30 minutes. */
  readonly idleTimeout?: number;
  /** Milliseconds a session lives at most, however busy. Default 12 hours. */
  readonly absoluteTimeout?: number;
  /**
   * The ID token's claims that `<basePath>/session` returns as the user (`sub` always). Default
   * `['sub', 'name', 'email', 'preferred_username']`.
   */
  readonly userClaims?: readonly string[];
  /**
   * Whether tokens are bound to a key of the session (DPoP, RFC 9449, ES256). Default: when the
   * provider advertises ES256 in `dpop_signing_alg_values_supported`.
   */
  readonly dpop?: boolean;
  /**
   * Milliseconds one call to the provider (a refresh grant, a revocation) may take before it counts
   * as unanswered: the session is kept and the request answered 503. Default 10 000.
   */
  readonly refreshTimeout?: number;
  /**
   * The largest request body the BFF forwards to an API, in bytes: it keeps the body to send it again
   * after a refresh. Larger ones are answered 413. Default 1 MiB.
   */
  readonly maxBodyBytes?: number;
  /**
   * The `fetch` for every call the BFF makes (the provider and the APIs), for a proxy agent or
   * instrumentation. Default the global `fetch`.
   */
  readonly fetch?: typeof fetch;
  /**
   * Told about what needs a person's attention on the server, where the browser only learns that
   * something failed (or nothing): a provider that issues no refresh token, a refresh that went
   * unanswered, a revocation that failed, a sign-in that could not start or finish (the person is sent
   * back with `bffError`), a `returnUrl` refused (once per kind). Default `console.warn`.
   */
  readonly onWarning?: (message: string) => void;
}

/** One API of `apis`, checked. */
export interface BffApi {
  /** The path prefix on this site, without a trailing slash (`'/api'`). */
  readonly prefix: string;
  /** The API's URL the prefix stands for, without a trailing slash. */
  readonly target: URL;
}

/** {@link BffOptions} checked, with every default filled in. */
export interface ResolvedBffOptions {
  readonly issuer: URL;
  readonly clientId: string;
  readonly clientSecret: string | null;
  readonly tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** `baseUrl`'s origin, as browsers write it in `Origin`. */
  readonly origin: string;
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string | null;
  /** Longest prefix first, so that `/api/admin` wins over `/api`. */
  readonly apis: readonly BffApi[];
  readonly store: BffSessionStore;
  readonly scope: string;
  readonly authorizationParams: Readonly<Record<string, string>>;
  readonly basePath: string;
  readonly idleTimeout: number;
  readonly absoluteTimeout: number;
  readonly userClaims: readonly string[];
  readonly dpop: boolean | undefined;
  readonly refreshTimeout: number;
  readonly maxBodyBytes: number;
  readonly fetch: typeof fetch;
  readonly onWarning: (message: string) => void;
}

const MINUTE = 60_000;

/** Parameters of the authorization request that the BFF sets itself. */
const PROTOCOL_PARAMETERS = [
  'client_id',
  'response_type',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
];

/** A path prefix: `/` and safe characters, no trailing slash, no dot segment. */
const PATH_PREFIX = /^(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/;

/**
 * Checks `options` and fills in the defaults, or throws `BffError` `InvalidOptions` naming the option
 * and the fix: a mistake here is found when the server starts, not at the first sign-in.
 */
export function resolveBffOptions(options: BffOptions): ResolvedBffOptions {
  if (typeof options !== 'object' || options === null) {
    invalid(`createBff needs options ({ issuer, clientId, baseUrl, ... }), got ${String(options)}`);
  }
  const issuer = secureUrl(options.issuer, 'issuer', "the provider's issuer, such as 'https://login.example'");
  const clientId = nonEmptyString(options.clientId, 'clientId', 'the client_id registered at the provider');
  const clientSecret =
    options.clientSecret === undefined
      ? null
      : nonEmptyString(options.clientSecret, 'clientSecret', 'the secret registered at the provider');
  const tokenEndpointAuthMethod =
    options.tokenEndpointAuthMethod ?? (clientSecret === null ? 'none' : 'client_secret_basic');
  if (!['client_secret_basic', 'client_secret_post', 'none'].includes(tokenEndpointAuthMethod)) {
    invalid(
      `createBff's tokenEndpointAuthMethod is ${describe(tokenEndpointAuthMethod)}: use 'client_secret_basic', 'client_secret_post' or 'none'`,
    );
  }
  if ((tokenEndpointAuthMethod === 'none') !== (clientSecret === null)) {
    invalid(
      clientSecret === null
        ? `createBff's tokenEndpointAuthMethod ${tokenEndpointAuthMethod} needs a clientSecret`
        : "createBff got a clientSecret with tokenEndpointAuthMethod 'none': leave one of them out",
    );
  }
  const base = secureUrl(options.baseUrl, 'baseUrl', "the app's public origin, such as 'https://shop.example'");
  if (base.pathname !== '/' || base.search !== '' || base.hash !== '') {
    invalid(
      `createBff's baseUrl is ${describe(options.baseUrl)}: give the origin alone, such as '${base.origin}' (the session cookie is for the whole site)`,
    );
  }
  const basePath = path(options.basePath ?? '/bff', 'basePath');
  const apis = resolveApis(options.apis ?? {}, basePath);
  const scope = options.scope ?? 'openid offline_access';
  if (typeof scope !== 'string' || !scope.split(' ').includes('openid')) {
    invalid(`createBff's scope is ${describe(scope)}: it must include openid, such as 'openid offline_access'`);
  }
  const authorizationParams = resolveAuthorizationParams(options.authorizationParams ?? {});
  const postLogoutRedirectUri =
    options.postLogoutRedirectUri === null
      ? null
      : secureUrl(options.postLogoutRedirectUri ?? `${base.origin}/`, 'postLogoutRedirectUri', 'a page of the app')
          .href;
  const store = options.store ?? createBffMemoryStore();
  const methods = ['read', 'create', 'touch', 'delete', 'change'] as const;
  if (typeof store !== 'object' || store === null || methods.some((name) => typeof store[name] !== 'function')) {
    invalid(
      "createBff's store is not a BffSessionStore (read, create, touch, delete, change): use createBffMemoryStore() or createBffPostgresStore({ pool })",
    );
  }
  const userClaims = options.userClaims ?? ['sub', 'name', 'email', 'preferred_username'];
  if (!Array.isArray(userClaims) || userClaims.some((claim) => typeof claim !== 'string' || claim === '')) {
    invalid(`createBff's userClaims is ${describe(userClaims)}: give claim names, such as ['sub', 'name']`);
  }
  if (options.dpop !== undefined && typeof options.dpop !== 'boolean') {
    invalid(`createBff's dpop is ${describe(options.dpop)}: true, false, or leave it out (the provider decides)`);
  }
  const fetchFunction = options.fetch ?? globalThis.fetch;
  if (typeof fetchFunction !== 'function') invalid(`createBff's fetch is ${describe(options.fetch)}: give a function`);
  const onWarning = options.onWarning ?? ((message: string) => console.warn(message));
  if (typeof onWarning !== 'function') {
    invalid(`createBff's onWarning is ${describe(options.onWarning)}: give a function`);
  }
  return {
    issuer,
    clientId,
    clientSecret,
    tokenEndpointAuthMethod,
    origin: base.origin,
    redirectUri: `${base.origin}${basePath}/callback`,
    postLogoutRedirectUri,
    apis,
    store,
    scope,
    authorizationParams,
    basePath,
    idleTimeout: duration(options.idleTimeout ?? 30 * MINUTE, 'idleTimeout'),
    absoluteTimeout: duration(options.absoluteTimeout ?? 12 * 60 * MINUTE, 'absoluteTimeout'),
    userClaims: [...new Set(['sub', ...userClaims])],
    dpop: options.dpop,
    refreshTimeout: duration(options.refreshTimeout ?? 10_000, 'refreshTimeout'),
    maxBodyBytes: duration(options.maxBodyBytes ?? 1024 * 1024, 'maxBodyBytes', 'a whole number of bytes'),
    fetch: fetchFunction,
    onWarning: (message) => onWarning(`ngx-token-refresh/bff: ${message}`),
  };
}

function resolveApis(apis: Readonly<Record<string, string>>, basePath: string): BffApi[] {
  if (typeof apis !== 'object' || apis === null || Array.isArray(apis)) {
    invalid(`createBff's apis is ${describe(apis)}: give { '/api': 'https://api.example' }`);
  }
  const resolved = Object.entries(apis).map(([prefix, target]) => {
    const checkedPrefix = path(prefix, `apis prefix ${describe(prefix)}`);
    if (overlaps(checkedPrefix, basePath)) {
      invalid(`createBff's apis prefix '${prefix}' overlaps basePath '${basePath}': give the API another prefix`);
    }
    const url = secureUrl(target, `apis['${prefix}']`, 'the URL of the API');
    if (url.search !== '' || url.hash !== '') {
      invalid(`createBff's apis['${prefix}'] is ${describe(target)}: give the API's URL without a query or fragment`);
    }
    url.pathname = url.pathname.replace(/\/+$/, '');
    return { prefix: checkedPrefix, target: url };
  });
  return resolved.sort((a, b) => b.prefix.length - a.prefix.length);
}

function resolveAuthorizationParams(params: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    invalid(
      `createBff's authorizationParams is ${describe(params)}: give { name: 'value' }, such as { prompt: 'consent' }`,
    );
  }
  for (const [name, value] of Object.entries(params)) {
    if (PROTOCOL_PARAMETERS.includes(name)) {
      invalid(
        `createBff's authorizationParams sets ${name}, which the BFF sets itself${name === 'scope' ? ' (use the scope option)' : ''}`,
      );
    }
    if (typeof value !== 'string')
      invalid(`createBff's authorizationParams.${name} is ${describe(value)}: give a string`);
  }
  return { ...params };
}

/** Whether one path prefix is the other or lies under it. */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function secureUrl(value: unknown, name: string, what: string): URL {
  let url: URL | null = null;
  try {
    url = typeof value === 'string' ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (url === null) invalid(`createBff's ${name} is ${describe(value)}: give ${what}`);
  if (url.protocol !== 'https:' && !isLoopbackHttp(url)) {
    invalid(
      `createBff's ${name} is ${describe(value)}: it must be https: (plain http: only to localhost or 127.0.0.1), since tokens and cookies travel there`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    invalid(`createBff's ${name} carries a user name or password: leave them out of the URL`);
  }
  return url;
}

function path(value: unknown, name: string): string {
  if (typeof value !== 'string' || !PATH_PREFIX.test(value)) {
    invalid(`createBff's ${name} is ${describe(value)}: give a path such as '/bff' (a leading slash, no trailing one)`);
  }
  return value;
}

function nonEmptyString(value: unknown, name: string, what: string): string {
  if (typeof value !== 'string' || value === '') invalid(`createBff's ${name} is ${describe(value)}: give ${what}`);
  return value;
}

function duration(value: unknown, name: string, what = 'a whole number of milliseconds'): number {
  if (!Number.isSafeInteger(value) || (value as number) <= 0) {
    invalid(`createBff's ${name} is ${describe(value)}: give ${what} above 0`);
  }
  return value as number;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return 'an array';
  return value === null || typeof value !== 'object' ? String(value) : 'an object';
}

function invalid(message: string): never {
  throw new BffError('InvalidOptions', message);
}
