import { randomBytes } from 'node:crypto';

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
  /** The refresh cookie's `Secure` attribute; `false` only for local plain HTTP. */
  readonly cookieSecure: boolean;
  /** Whether login also returns the refresh token in the JSON body (the body flow, for cookie-less clients). */
  readonly refreshTokenInBody: boolean;
  /** Login attempts allowed per client address and window. */
  readonly loginRateLimitMax: number;
  /** The login rate limit's window, in seconds. */
  readonly loginRateLimitWindowSeconds: number;
  /** Largest request body, in bytes. */
  readonly bodyLimitBytes: number;
  /** Trust `X-Forwarded-For` (and friends) from a reverse proxy, for the client address. */
  readonly trustProxy: boolean;
  /** Create the demo accounts and users on the first start of an empty database. */
  readonly seedDemoData: boolean;
  /** Vendor of the `Accept` media type: `application/vnd.<vendor>.v1+json`. */
  readonly apiVendor: string;
  /** Pino log level. */
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
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
    cookieSecure: boolean(env, 'COOKIE_SECURE', true),
    refreshTokenInBody: boolean(env, 'REFRESH_TOKEN_IN_BODY', false),
    loginRateLimitMax: integer(env, 'LOGIN_RATE_LIMIT_MAX', 10, 1, 1_000_000),
    loginRateLimitWindowSeconds: integer(env, 'LOGIN_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 24 * 60 * 60),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 16 * 1024, 1024, 1024 * 1024),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    seedDemoData: boolean(env, 'SEED_DEMO_DATA', true),
    apiVendor,
    logLevel: logLevel as ServerConfig['logLevel'],
  };
}

function fail(name: string, problem: string): never {
  throw new Error(`reference-server: ${name} ${problem}`);
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
