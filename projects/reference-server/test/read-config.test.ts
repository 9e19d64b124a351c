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
        refreshTokenInBody: false,
        loginRateLimitMax: 10,
        loginRateLimitWindowSeconds: 60,
        bodyLimitBytes: 16384,
        trustProxy: false,
        seedDemoData: true,
        apiVendor: 'showcase',
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
      REFRESH_TOKEN_IN_BODY: 'yes',
      LOGIN_RATE_LIMIT_MAX: '5',
      LOGIN_RATE_LIMIT_WINDOW_SECONDS: '300',
      BODY_LIMIT_BYTES: '4096',
      TRUST_PROXY: '1',
      SEED_DEMO_DATA: 'no',
      API_VENDOR: 'example',
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
        refreshTokenInBody: true,
        loginRateLimitMax: 5,
        loginRateLimitWindowSeconds: 300,
        bodyLimitBytes: 4096,
        trustProxy: true,
        seedDemoData: false,
        apiVendor: 'example',
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
  ] as const) {
    it(`refuses ${name}=${value} with a message naming it`, () => {
      assert.throws(() => readConfig({ [name]: value }), message);
    });
  }

  it('takes REFRESH_TOKEN_REUSE_INTERVAL_SECONDS=0 (strict single use) and up to 300', () => {
    assert.equal(readConfig({ REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '0' }).refreshTokenReuseIntervalSeconds, 0);
    assert.equal(readConfig({ REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '300' }).refreshTokenReuseIntervalSeconds, 300);
  });

  it('treats blank values as unset', () => {
    assert.equal(readConfig({ PORT: ' ', DATABASE_URL: '' }).port, 3000);
    assert.equal(readConfig({ DATABASE_URL: '' }).databaseUrl, null);
  });
});
