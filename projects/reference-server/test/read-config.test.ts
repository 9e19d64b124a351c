import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { readConfig } from '../src/read-config.js';

describe('readConfig', () => {
  it('has defaults for everything, a random signing key among them', () => {
    const config = readConfig({});
    assert.deepEqual(
      { ...config, jwtSecret: undefined },
      {
        port: 3000,
        host: '127.0.0.1',
        databaseUrl: null,
        pgliteDataDir: null,
        accessTokenTtlSeconds: 900,
        refreshTokenTtlSeconds: 604800,
        refreshTokenReuseIntervalSeconds: 30,
        jwtSecret: undefined,
        jwtSecretGenerated: true,
        corsOrigins: [],
        cookieSecure: true,
        refreshCookiePath: '/auth/refresh',
        refreshTokenInBody: false,
        dpop: 'off',
        loginRateLimitMax: 10,
        loginRateLimitWindowSeconds: 60,
        loginAccountFreeAttempts: 5,
        loginAccountMaxDelaySeconds: 900,
        loginAccountForgetSeconds: 86400,
        passwordCheckConcurrency: 2,
        passwordCheckQueue: 256,
        refreshRateLimitMax: 60,
        refreshRateLimitWindowSeconds: 60,
        logoutRateLimitMax: 30,
        logoutRateLimitWindowSeconds: 60,
        bodyLimitBytes: 16384,
        trustProxy: false,
        httpsOnly: false,
        tls: null,
        requestTimeoutMs: 15000,
        headersTimeoutMs: 10000,
        keepAliveTimeoutMs: 72000,
        connectionTimeoutMs: 30000,
        maxConnectionsPerAddress: 100,
        databaseConnectTimeoutMs: 5000,
        databaseStatementTimeoutMs: 5000,
        apiDocs: true,
        seedDemoData: true,
        apiVendor: 'showcase',
        devLabRoutes: false,
        logLevel: 'info',
      },
    );
    assert.equal(config.jwtSecret.length, 32);
    assert.notDeepEqual(readConfig({}).jwtSecret, config.jwtSecret);
  });

  it('reads every variable', () => {
    const config = readConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://app@db/app',
      PGLITE_DATA_DIR: './data',
      ACCESS_TOKEN_TTL_SECONDS: '60',
      REFRESH_TOKEN_TTL_SECONDS: '3600',
      REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '10',
      JWT_SECRET: 's'.repeat(32),
      CORS_ORIGINS: 'https://a.example, http://localhost:4200/',
      COOKIE_SECURE: 'false',
      REFRESH_COOKIE_PATH: '/',
      REFRESH_TOKEN_IN_BODY: 'yes',
      DPOP: 'required',
      LOGIN_RATE_LIMIT_MAX: '5',
      LOGIN_RATE_LIMIT_WINDOW_SECONDS: '300',
      LOGIN_ACCOUNT_FREE_ATTEMPTS: '4',
      LOGIN_ACCOUNT_MAX_DELAY_SECONDS: '120',
      LOGIN_ACCOUNT_FORGET_SECONDS: '3600',
      PASSWORD_CHECK_CONCURRENCY: '0',
      PASSWORD_CHECK_QUEUE: '9',
      REFRESH_RATE_LIMIT_MAX: '7',
      REFRESH_RATE_LIMIT_WINDOW_SECONDS: '70',
      LOGOUT_RATE_LIMIT_MAX: '8',
      LOGOUT_RATE_LIMIT_WINDOW_SECONDS: '80',
      BODY_LIMIT_BYTES: '4096',
      TRUST_PROXY: '1',
      HTTPS_ONLY: 'true',
      TLS_CERT_FILE: '/etc/tls/cert.pem',
      TLS_KEY_FILE: '/etc/tls/key.pem',
      REQUEST_TIMEOUT_MS: '20000',
      HEADERS_TIMEOUT_MS: '5000',
      KEEP_ALIVE_TIMEOUT_MS: '65000',
      CONNECTION_TIMEOUT_MS: '40000',
      MAX_CONNECTIONS_PER_ADDRESS: '0',
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
      DATABASE_STATEMENT_TIMEOUT_MS: '3000',
      API_DOCS: 'false',
      SEED_DEMO_DATA: 'no',
      API_VENDOR: 'example',
      DEV_LAB_ROUTES: 'true',
      LOG_LEVEL: 'warn',
    });
    assert.deepEqual(
      { ...config, jwtSecret: Buffer.from(config.jwtSecret).toString() },
      {
        port: 8080,
        host: '0.0.0.0',
        databaseUrl: 'postgres://app@db/app',
        pgliteDataDir: './data',
        accessTokenTtlSeconds: 60,
        refreshTokenTtlSeconds: 3600,
        refreshTokenReuseIntervalSeconds: 10,
        jwtSecret: 's'.repeat(32),
        jwtSecretGenerated: false,
        corsOrigins: ['https://a.example', 'http://localhost:4200'],
        cookieSecure: false,
        refreshCookiePath: '/',
        refreshTokenInBody: true,
        dpop: 'required',
        loginRateLimitMax: 5,
        loginRateLimitWindowSeconds: 300,
        loginAccountFreeAttempts: 4,
        loginAccountMaxDelaySeconds: 120,
        loginAccountForgetSeconds: 3600,
        passwordCheckConcurrency: 0,
        passwordCheckQueue: 9,
        refreshRateLimitMax: 7,
        refreshRateLimitWindowSeconds: 70,
        logoutRateLimitMax: 8,
        logoutRateLimitWindowSeconds: 80,
        bodyLimitBytes: 4096,
        trustProxy: true,
        httpsOnly: true,
        tls: { certFile: '/etc/tls/cert.pem', keyFile: '/etc/tls/key.pem' },
        requestTimeoutMs: 20000,
        headersTimeoutMs: 5000,
        keepAliveTimeoutMs: 65000,
        connectionTimeoutMs: 40000,
        maxConnectionsPerAddress: 0,
        databaseConnectTimeoutMs: 2000,
        databaseStatementTimeoutMs: 3000,
        apiDocs: false,
        seedDemoData: false,
        apiVendor: 'example',
        devLabRoutes: true,
        logLevel: 'warn',
      },
    );
  });

  for (const [name, value, message] of [
    ['JWT_SECRET', 'short', /JWT_SECRET must be at least 32 bytes/],
    ['PORT', 'http', /PORT must be a whole number from 0 to 65535/],
    ['PORT', '70000', /PORT must be a whole number/],
    ['ACCESS_TOKEN_TTL_SECONDS', '0', /ACCESS_TOKEN_TTL_SECONDS must be a whole number from 1/],
    ['ACCESS_TOKEN_TTL_SECONDS', '15m', /ACCESS_TOKEN_TTL_SECONDS must be a whole number/],
    ['REFRESH_TOKEN_TTL_SECONDS', '600', /REFRESH_TOKEN_TTL_SECONDS must be longer than ACCESS_TOKEN_TTL_SECONDS/],
    [
      'REFRESH_TOKEN_REUSE_INTERVAL_SECONDS',
      '301',
      /REFRESH_TOKEN_REUSE_INTERVAL_SECONDS must be a whole number from 0 to 300/,
    ],
    ['REFRESH_TOKEN_REUSE_INTERVAL_SECONDS', '-1', /REFRESH_TOKEN_REUSE_INTERVAL_SECONDS must be a whole number/],
    ['REFRESH_TOKEN_REUSE_INTERVAL_SECONDS', '30s', /REFRESH_TOKEN_REUSE_INTERVAL_SECONDS must be a whole number/],
    ['COOKIE_SECURE', 'off', /COOKIE_SECURE must be true or false/],
    ['CORS_ORIGINS', '*', /CORS_ORIGINS must list origins/],
    ['CORS_ORIGINS', 'https://a.example/app', /CORS_ORIGINS must list origins/],
    ['CORS_ORIGINS', 'a.example', /CORS_ORIGINS must list origins/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of/],
    ['API_VENDOR', 'Not Valid', /API_VENDOR must be/],
    ['TRUST_PROXY', 'proxy.internal', /TRUST_PROXY must be true, false, or IP addresses and CIDR ranges/],
    ['TRUST_PROXY', '10.0.0.0/33', /TRUST_PROXY must be/],
    ['TLS_CERT_FILE', '/etc/tls/cert.pem', /TLS_CERT_FILE and TLS_KEY_FILE must be set together/],
    ['TLS_KEY_FILE', '/etc/tls/key.pem', /TLS_CERT_FILE and TLS_KEY_FILE must be set together/],
    ['HEADERS_TIMEOUT_MS', '20000', /HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS/],
    ['REQUEST_TIMEOUT_MS', '10', /REQUEST_TIMEOUT_MS must be a whole number from 50/],
    ['HTTPS_ONLY', 'sometimes', /HTTPS_ONLY must be true or false/],
    ['API_DOCS', 'maybe', /API_DOCS must be true or false/],
    ['REFRESH_COOKIE_PATH', '/auth', /REFRESH_COOKIE_PATH must be \/auth\/refresh or \/, got "\/auth"/],
    ['DPOP', 'on', /DPOP must be off or allowed or required, got "on"/],
    ['LOGIN_ACCOUNT_FREE_ATTEMPTS', '0', /LOGIN_ACCOUNT_FREE_ATTEMPTS must be a whole number from 1/],
    ['LOGIN_ACCOUNT_MAX_DELAY_SECONDS', '0', /LOGIN_ACCOUNT_MAX_DELAY_SECONDS must be a whole number from 1/],
    [
      'LOGIN_ACCOUNT_FORGET_SECONDS',
      '600',
      /LOGIN_ACCOUNT_FORGET_SECONDS must not be shorter than LOGIN_ACCOUNT_MAX_DELAY_SECONDS/,
    ],
  ] as const) {
    it(`refuses ${name}=${value} with a message naming it`, () => {
      assert.throws(() => readConfig({ [name]: value }), message);
    });
  }

  it('takes REFRESH_TOKEN_REUSE_INTERVAL_SECONDS=0 (strict single use) and up to 300', () => {
    assert.equal(readConfig({ REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '0' }).refreshTokenReuseIntervalSeconds, 0);
    assert.equal(readConfig({ REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '300' }).refreshTokenReuseIntervalSeconds, 300);
  });

  it('reads TRUST_PROXY as a list of proxy addresses and ranges', () => {
    assert.deepEqual(readConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1, fd00::/8' }).trustProxy, [
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
      'fd00::/8',
    ]);
    assert.equal(readConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  });

  it('refuses plain HTTP by default when NODE_ENV=production, unless told otherwise', () => {
    assert.equal(readConfig({ NODE_ENV: 'production' }).httpsOnly, true);
    assert.equal(readConfig({ NODE_ENV: 'production', HTTPS_ONLY: 'false' }).httpsOnly, false);
    assert.equal(readConfig({ NODE_ENV: 'development' }).httpsOnly, false);
  });

  it('hides the API docs by default when NODE_ENV=production, unless told otherwise', () => {
    assert.equal(readConfig({ NODE_ENV: 'production' }).apiDocs, false);
    assert.equal(readConfig({ NODE_ENV: 'production', API_DOCS: 'true' }).apiDocs, true);
    assert.equal(readConfig({ NODE_ENV: 'development' }).apiDocs, true);
    assert.equal(readConfig({ NODE_ENV: 'development', API_DOCS: 'false' }).apiDocs, false);
  });

  it('refuses COOKIE_SECURE=false when NODE_ENV=production, and takes it otherwise', () => {
    assert.throws(
      () => readConfig({ NODE_ENV: 'production', COOKIE_SECURE: 'false' }),
      /^Error: reference-server: COOKIE_SECURE must not be false when NODE_ENV=production/,
    );
    assert.throws(() => readConfig({ NODE_ENV: 'production', COOKIE_SECURE: 'no' }), /COOKIE_SECURE/);
    assert.equal(readConfig({ NODE_ENV: 'production', COOKIE_SECURE: 'true' }).cookieSecure, true);
    assert.equal(readConfig({ NODE_ENV: 'development', COOKIE_SECURE: 'false' }).cookieSecure, false);
    assert.equal(readConfig({ COOKIE_SECURE: 'false' }).cookieSecure, false);
  });

  it('refuses DEV_LAB_ROUTES=true when NODE_ENV=production, and takes it otherwise', () => {
    assert.throws(
      () => readConfig({ NODE_ENV: 'production', DEV_LAB_ROUTES: 'true' }),
      (error: Error) =>
        error.message ===
        'reference-server: DEV_LAB_ROUTES must not be true when NODE_ENV=production ' +
          '(POST /auth/lab/expire-access-token is for development only; unset DEV_LAB_ROUTES)',
    );
    assert.throws(() => readConfig({ NODE_ENV: 'production', DEV_LAB_ROUTES: 'yes' }), /DEV_LAB_ROUTES must not be/);
    assert.equal(readConfig({ NODE_ENV: 'production', DEV_LAB_ROUTES: 'false' }).devLabRoutes, false);
    assert.equal(readConfig({ NODE_ENV: 'development', DEV_LAB_ROUTES: 'true' }).devLabRoutes, true);
    assert.equal(readConfig({ NODE_ENV: 'test', DEV_LAB_ROUTES: 'true' }).devLabRoutes, true);
    assert.equal(readConfig({ DEV_LAB_ROUTES: 'true' }).devLabRoutes, true);
  });

  for (const value of ['Production', 'PRODUCTION', ' production ']) {
    it(`counts NODE_ENV=${JSON.stringify(value)} as production: its defaults, and its refusals`, () => {
      const config = readConfig({ NODE_ENV: value });
      assert.equal(config.httpsOnly, true);
      assert.equal(config.apiDocs, false);
      assert.throws(
        () => readConfig({ NODE_ENV: value, COOKIE_SECURE: 'false' }),
        /^Error: reference-server: COOKIE_SECURE must not be false when NODE_ENV=production/,
      );
      assert.throws(
        () => readConfig({ NODE_ENV: value, DEV_LAB_ROUTES: 'true' }),
        /^Error: reference-server: DEV_LAB_ROUTES must not be true when NODE_ENV=production/,
      );
    });
  }

  for (const value of ['prod', 'Prod', 'staging', 'dev', 'productio n', 'production,test']) {
    it(`refuses NODE_ENV=${JSON.stringify(value)}, naming the values it knows`, () => {
      assert.throws(
        () => readConfig({ NODE_ENV: value }),
        (error: Error) =>
          error.message ===
          'reference-server: NODE_ENV must be production, development or test ' +
            `(in any case; unset means development), got "${value}"`,
      );
    });
  }

  it('takes NODE_ENV development and test in any case, and unset or blank as development', () => {
    for (const value of ['development', 'Development', 'DEVELOPMENT', 'test', 'Test', '', ' ', undefined]) {
      const config = readConfig({ NODE_ENV: value, COOKIE_SECURE: 'false', DEV_LAB_ROUTES: 'true' });
      assert.deepEqual(
        [config.httpsOnly, config.apiDocs, config.cookieSecure, config.devLabRoutes],
        [false, true, false, true],
        `NODE_ENV=${JSON.stringify(value)}`,
      );
    }
  });

  it('treats blank values as unset', () => {
    assert.equal(readConfig({ PORT: ' ', DATABASE_URL: '' }).port, 3000);
    assert.equal(readConfig({ DATABASE_URL: '' }).databaseUrl, null);
  });
});
