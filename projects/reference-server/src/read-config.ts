import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';

/** Everything the server can be told from outside; see the configuration table of the README. */
export interface ServerConfig {
  /** TCP port; 0 picks a free one (tests). */
  readonly port: number;
  /** Interface to listen on. */
  readonly host: string;
  /** PostgreSQL connection string; `null` selects the embedded PGlite. */
  readonly databaseUrl: string | null;
  /** PGlite's data folder; `null` keeps the embedded database in memory (gone when the process ends). */
  readonly pgliteDataDir: string | null;
  /** Lifetime of an access token, in seconds. */
  readonly accessTokenTtlSeconds: number;
  /** Lifetime of a refresh-token family (a login), in seconds; rotation keeps the family's end. */
  readonly refreshTokenTtlSeconds: number;
  /**
   * How long after a rotation the rotated token's immediate predecessor still gets the live token
   * (two tabs, a lost answer) instead of counting as reuse, in seconds; 0: strict single use.
   */
  readonly refreshTokenReuseIntervalSeconds: number;
  /** HS256 signing key of the access tokens; the refresh tokens' key is derived from it. */
  readonly jwtSecret: Uint8Array;
  /** Whether `jwtSecret` was generated at start-up (JWT_SECRET unset): tokens die with the process. */
  readonly jwtSecretGenerated: boolean;
  /** Origins allowed to call with CORS (credentials included); empty: no cross-origin access. */
  readonly corsOrigins: readonly string[];
  /**
   * The refresh cookie's `Secure` attribute; `false` only for local plain HTTP, and refused when
   * `NODE_ENV=production`.
   */
  readonly cookieSecure: boolean;
  /**
   * The refresh cookie's `Path`: `/auth/refresh` (the contract's; the cookie goes to the refresh
   * endpoint only) or `/` (apps that render on the server: page requests carry it, so a render can
   * refresh; the name is then `__Host-refreshToken`).
   */
  readonly refreshCookiePath: '/auth/refresh' | '/';
  /** Whether login also returns the refresh token in the JSON body (the body flow, for cookie-less clients). */
  readonly refreshTokenInBody: boolean;
  /**
   * DPoP (RFC 9449), sender-constrained tokens: `off` (Bearer only, nothing of DPoP is looked at),
   * `allowed` (DPoP-bound and Bearer tokens both accepted; a bound token only with its proof) or
   * `required` (DPoP only). See dpop-proofs.ts.
   */
  readonly dpop: DpopMode;
  /** Login attempts allowed per client address and window. */
  readonly loginRateLimitMax: number;
  /** The login rate limit's window, in seconds. */
  readonly loginRateLimitWindowSeconds: number;
  /**
   * Sign-in attempts per account (or per trusted device) answered without delay; from the next on,
   * each waits twice as long as the last.
   */
  readonly loginAccountFreeAttempts: number;
  /** The longest wait between two sign-in attempts for one account, in seconds. */
  readonly loginAccountMaxDelaySeconds: number;
  /** How long after its last attempt an account's attempts are forgotten, in seconds. */
  readonly loginAccountForgetSeconds: number;
  /**
   * Password checks (scrypt) the instance runs at once, over all sign-ins; 0: no cap. The others
   * wait, a trusted device of the account first (see password-checks.ts).
   */
  readonly passwordCheckConcurrency: number;
  /** Sign-ins that may wait for a password check in each queue; beyond, 503 `ServiceUnavailable`. */
  readonly passwordCheckQueue: number;
  /** Refresh attempts allowed per session (per client address without a genuine token) and window. */
  readonly refreshRateLimitMax: number;
  /** The refresh rate limit's window, in seconds. */
  readonly refreshRateLimitWindowSeconds: number;
  /** Logout attempts allowed per client address and window. */
  readonly logoutRateLimitMax: number;
  /** The logout rate limit's window, in seconds. */
  readonly logoutRateLimitWindowSeconds: number;
  /** Largest request body, in bytes. */
  readonly bodyLimitBytes: number;
  /**
   * Whose `X-Forwarded-For`, `-Host` and `-Proto` to believe: `false` nobody, `true` anybody (only
   * when nothing but the proxy can reach the server), or the proxies' addresses and CIDR ranges.
   */
  readonly trustProxy: boolean | readonly string[];
  /** Refuse requests that did not come over HTTPS (directly, or as a trusted proxy says). */
  readonly httpsOnly: boolean;
  /** PEM files of the certificate (chain) and its key, to serve HTTPS; `null`: plain HTTP. */
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  /** How long a whole request (headers and body) may take to arrive, in milliseconds. */
  readonly requestTimeoutMs: number;
  /** How long a request's headers may take to arrive, in milliseconds. */
  readonly headersTimeoutMs: number;
  /** How long an idle keep-alive connection stays open after an answer, in milliseconds. */
  readonly keepAliveTimeoutMs: number;
  /** How long a connection may stay silent (nothing sent or read) during a request, in milliseconds. */
  readonly connectionTimeoutMs: number;
  /** Open connections allowed per client address (trusted proxies exempt); 0: no cap. */
  readonly maxConnectionsPerAddress: number;
  /** PostgreSQL: how long opening a connection, or waiting for a free one, may take, in milliseconds. */
  readonly databaseConnectTimeoutMs: number;
  /**
   * How long one statement may run (PostgreSQL) or wait for the database (PGlite), in milliseconds;
   * beyond it the request gets a 503.
   */
  readonly databaseStatementTimeoutMs: number;
  /**
   * Serve the OpenAPI document (`/openapi.json`) and its reference page (`/docs`); off by default
   * when `NODE_ENV=production`, on otherwise. Off, both answer 404 like any unknown path.
   */
  readonly apiDocs: boolean;
  /** Create the demo accounts and users on the first start of an empty database. */
  readonly seedDemoData: boolean;
  /** Vendor of the `Accept` media type: `application/vnd.<vendor>.v1+json`. */
  readonly apiVendor: string;
  /**
   * Development only: the auth lab's `POST /auth/lab/expire-access-token` (see lab-routes.ts). Off
   * unless DEV_LAB_ROUTES=true; `npm run start:real` and the browser tests turn it on. Refused when
   * `NODE_ENV=production`.
   */
  readonly devLabRoutes: boolean;
  /** Pino log level. */
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/** The values of `DPOP`; see {@link ServerConfig.dpop}. */
export type DpopMode = 'off' | 'allowed' | 'required';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** The values of `NODE_ENV` the server knows, in any case; unset means development. */
const NODE_ENVS = ['production', 'development', 'test'] as const;
/** HS256 wants a key at least as long as its hash (RFC 7518 §3.2): 256 bits. */
const MIN_SECRET_BYTES = 32;

/**
 * Reads the configuration from environment variables, filling in the defaults, and fails with a
 * message naming the variable when a value is unusable (a typo must not silently weaken security).
 *
 * @example
 * const config = readConfig(process.env);
 */
export function readConfig(env: Readonly<Record<string, string | undefined>>): ServerConfig {
  const secret = text(env, 'JWT_SECRET');
  if (secret !== null && Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
    fail('JWT_SECRET', `must be at least ${MIN_SECRET_BYTES} bytes long (e.g. openssl rand -base64 48)`);
  }
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    fail('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const apiVendor = text(env, 'API_VENDOR') ?? 'showcase';
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(apiVendor)) fail('API_VENDOR', 'must be lower-case letters, digits, "." or "-"');
  const accessTokenTtlSeconds = integer(env, 'ACCESS_TOKEN_TTL_SECONDS', 900, 1, 24 * 60 * 60);
  const refreshTokenTtlSeconds = integer(env, 'REFRESH_TOKEN_TTL_SECONDS', 7 * 24 * 60 * 60, 60, 400 * 24 * 60 * 60);
  if (refreshTokenTtlSeconds <= accessTokenTtlSeconds) {
    fail('REFRESH_TOKEN_TTL_SECONDS', 'must be longer than ACCESS_TOKEN_TTL_SECONDS');
  }
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 15_000, 50, 600_000);
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 50, 600_000);
  // Node refuses a header deadline later than the whole request's.
  if (headersTimeoutMs > requestTimeoutMs) fail('HEADERS_TIMEOUT_MS', 'must not be longer than REQUEST_TIMEOUT_MS');
  const production = nodeEnv(env) === 'production';
  const cookieSecure = boolean(env, 'COOKIE_SECURE', true);
  // A cookie without Secure goes out over plain HTTP to anyone on the path: a refresh token, that is
  // a whole session. Production must not run so by a leftover development setting.
  if (!cookieSecure && production) {
    fail(
      'COOKIE_SECURE',
      'must not be false when NODE_ENV=production (the refresh cookie would travel over plain HTTP)',
    );
  }
  const devLabRoutes = boolean(env, 'DEV_LAB_ROUTES', false);
  // A route that exists for the showcase's lab has no business on a production server: refused rather
  // than silently dropped, so a leftover development setting is seen and removed.
  if (devLabRoutes && production) {
    fail(
      'DEV_LAB_ROUTES',
      'must not be true when NODE_ENV=production (POST /auth/lab/expire-access-token is for development only; ' +
        'unset DEV_LAB_ROUTES)',
    );
  }
  const loginAccountMaxDelaySeconds = integer(env, 'LOGIN_ACCOUNT_MAX_DELAY_SECONDS', 900, 1, 24 * 60 * 60);
  const loginAccountForgetSeconds = integer(env, 'LOGIN_ACCOUNT_FORGET_SECONDS', 24 * 60 * 60, 60, 30 * 24 * 60 * 60);
  // Forgetting the attempts of an account that is still waiting would end its delay early.
  if (loginAccountForgetSeconds < loginAccountMaxDelaySeconds) {
    fail('LOGIN_ACCOUNT_FORGET_SECONDS', 'must not be shorter than LOGIN_ACCOUNT_MAX_DELAY_SECONDS');
  }
  const certFile = text(env, 'TLS_CERT_FILE');
  const keyFile = text(env, 'TLS_KEY_FILE');
  if ((certFile === null) !== (keyFile === null)) fail('TLS_CERT_FILE', 'and TLS_KEY_FILE must be set together');
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: text(env, 'HOST') ?? '127.0.0.1',
    databaseUrl: text(env, 'DATABASE_URL'),
    pgliteDataDir: text(env, 'PGLITE_DATA_DIR'),
    accessTokenTtlSeconds,
    refreshTokenTtlSeconds,
    // 30 s, Okta's default grace period: long enough for a refresh already on the wire from another
    // tab, a slow mobile network or a retry after a lost answer; short enough that a copied old token
    // is worthless half a minute after its rotation. At most 5 minutes: beyond that it is no overlap.
    refreshTokenReuseIntervalSeconds: integer(env, 'REFRESH_TOKEN_REUSE_INTERVAL_SECONDS', 30, 0, 300),
    jwtSecret: secret === null ? new Uint8Array(randomBytes(MIN_SECRET_BYTES)) : new TextEncoder().encode(secret),
    jwtSecretGenerated: secret === null,
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    cookieSecure,
    refreshCookiePath: oneOf(env, 'REFRESH_COOKIE_PATH', ['/auth/refresh', '/'] as const),
    refreshTokenInBody: boolean(env, 'REFRESH_TOKEN_IN_BODY', false),
    dpop: oneOf(env, 'DPOP', ['off', 'allowed', 'required'] as const),
    loginRateLimitMax: integer(env, 'LOGIN_RATE_LIMIT_MAX', 10, 1, 1_000_000),
    loginRateLimitWindowSeconds: integer(env, 'LOGIN_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 24 * 60 * 60),
    // Five tries cover typos; then 1 s, 2 s, 4 s, ... up to 15 minutes: about a hundred guesses a day
    // for an attacker, while a person who signed in from this browser before is not delayed at all
    // (trusted devices, login-devices.ts).
    loginAccountFreeAttempts: integer(env, 'LOGIN_ACCOUNT_FREE_ATTEMPTS', 5, 1, 1_000_000),
    loginAccountMaxDelaySeconds,
    loginAccountForgetSeconds,
    // Measured on 2 cores under a flood of 64 sign-ins at once (bench/SERVER-RESULTS.md, "Sign-ins under
    // a hash flood"): with 2 at once a trusted device signs in about as fast as without the flood, and
    // the flood still gets most of the hashes it got without a cap; 4 (Node's whole thread pool) made
    // the trusted device twice as slow. 256 waiting: a flood of up to 256 at once only waits, which
    // holds each attacker to the hash rate; beyond, refusals cost the server far less than hashes.
    passwordCheckConcurrency: integer(env, 'PASSWORD_CHECK_CONCURRENCY', 2, 0, 1024),
    passwordCheckQueue: integer(env, 'PASSWORD_CHECK_QUEUE', 256, 0, 100_000),
    // A tab refreshes once per access-token lifetime; several tabs, a retry and a lost answer stay
    // far below one a second. Logout is rarer still.
    refreshRateLimitMax: integer(env, 'REFRESH_RATE_LIMIT_MAX', 60, 1, 1_000_000),
    refreshRateLimitWindowSeconds: integer(env, 'REFRESH_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 24 * 60 * 60),
    logoutRateLimitMax: integer(env, 'LOGOUT_RATE_LIMIT_MAX', 30, 1, 1_000_000),
    logoutRateLimitWindowSeconds: integer(env, 'LOGOUT_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 24 * 60 * 60),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 16 * 1024, 1024, 1024 * 1024),
    trustProxy: proxies(env, 'TRUST_PROXY'),
    httpsOnly: boolean(env, 'HTTPS_ONLY', production),
    tls: certFile !== null && keyFile !== null ? { certFile, keyFile } : null,
    requestTimeoutMs,
    headersTimeoutMs,
    // Fastify's default: longer than the 60 s idle timeout of common load balancers, so the server
    // never closes a connection the balancer is about to reuse.
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 50, 600_000),
    connectionTimeoutMs: integer(env, 'CONNECTION_TIMEOUT_MS', 30_000, 50, 600_000),
    maxConnectionsPerAddress: integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', 100, 0, 1_000_000),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000, 50, 600_000),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 50, 600_000),
    // The document maps the whole API for whoever asks; production publishes it only when told to.
    apiDocs: boolean(env, 'API_DOCS', !production),
    seedDemoData: boolean(env, 'SEED_DEMO_DATA', true),
    apiVendor,
    devLabRoutes,
    logLevel: logLevel as ServerConfig['logLevel'],
  };
}

function fail(name: string, problem: string): never {
  throw new Error(`reference-server: ${name} ${problem}`);
}

/**
 * `NODE_ENV` in lower case (`Production` is production); unset or blank: development. Any other value
 * is refused: a misspelt `prod` must not quietly keep the development defaults.
 */
function nodeEnv(env: Readonly<Record<string, string | undefined>>): (typeof NODE_ENVS)[number] {
  const value = text(env, 'NODE_ENV');
  if (value === null) return 'development';
  const known = NODE_ENVS.find((name) => name === value.toLowerCase());
  if (known === undefined) {
    fail('NODE_ENV', `must be production, development or test (in any case; unset means development), got "${value}"`);
  }
  return known;
}

/** One of `values` (the first when unset). */
function oneOf<const T extends readonly [string, ...string[]]>(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  values: T,
): T[number] {
  const value = text(env, name) ?? values[0];
  if (!values.includes(value)) fail(name, `must be ${values.join(' or ')}, got "${value}"`);
  return value;
}

/** A variable's value, or `null` when unset or blank. */
function text(env: Readonly<Record<string, string | undefined>>, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

function integer(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = text(env, name);
  if (value === null) return fallback;
  const parsed = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!(parsed >= min && parsed <= max)) fail(name, `must be a whole number from ${min} to ${max}, got "${value}"`);
  return parsed;
}

function boolean(env: Readonly<Record<string, string | undefined>>, name: string, fallback: boolean): boolean {
  const value = text(env, name)?.toLowerCase() ?? null;
  if (value === null) return fallback;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  return fail(name, `must be true or false, got "${value}"`);
}

/** `true`, `false`, or a comma-separated list of IP addresses and CIDR ranges (`10.0.0.0/8`). */
function proxies(env: Readonly<Record<string, string | undefined>>, name: string): boolean | string[] {
  const value = text(env, name);
  if (value === null || /^(false|0|no)$/i.test(value)) return false;
  if (/^(true|1|yes)$/i.test(value)) return true;
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [address = '', bits, ...rest] = entry.split('/');
      const family = isIP(address);
      const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
      if (family === 0 || !prefixOk || rest.length > 0) {
        fail(name, `must be true, false, or IP addresses and CIDR ranges such as 10.0.0.0/8, got "${entry}"`);
      }
      return entry;
    });
}

/** A comma-separated list of exact origins (`scheme://host[:port]`, no path, no `*`). */
function origins(env: Readonly<Record<string, string | undefined>>, name: string): string[] {
  const value = text(env, name);
  if (value === null) return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      let origin: string | null = null;
      try {
        origin = new URL(entry).origin;
      } catch {
        // reported below
      }
      if (origin === null || origin === 'null' || origin !== entry.replace(/\/$/, '')) {
        fail(name, `must list origins such as https://app.example.com (no path, no "*"), got "${entry}"`);
      }
      return origin;
    });
}
