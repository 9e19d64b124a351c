import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './chromium-launch-options.mjs';

/** Where the reference server listens during these tests (away from `npm run server`'s 3000). */
const SERVER_PORT = 3101;
/** Where the showcase (the `real` build) and its proxy to the server listen. */
const SHOWCASE_PORT = 4311;
/** Where the zone.js build of the same showcase (the `real-zone` build) and its proxy listen. */
const ZONE_SHOWCASE_PORT = 4312;
/** A second reference server, whose access tokens live long enough to be refreshed ahead of expiry. */
const PROACTIVE_SERVER_PORT = 3102;
/** The `real` build again, its proxy pointed at the second server. */
const PROACTIVE_SHOWCASE_PORT = 4313;
/** The `real-fetch` build (HttpClient over fetch), its proxy pointed at the first server. */
const FETCH_SHOWCASE_PORT = 4314;
/** A third reference server, with DPOP=required. */
const DPOP_SERVER_PORT = 3103;
/** The `real-dpop` build (the app signs its calls with `withDPoP()`), its proxy pointed at the third server. */
const DPOP_SHOWCASE_PORT = 4315;

/** The settings both reference servers share (each has its own port and access-token lifetime). */
const SERVER_ENV = {
  // Development, whatever NODE_ENV the machine has: production refuses COOKIE_SECURE=false.
  NODE_ENV: 'development',
  HOST: '127.0.0.1',
  // The server's default, set here because the tabs tests rely on it: the value of
  // REFRESH_TOKEN_REUSE_INTERVAL_SECONDS in projects/showcase/src/app/backend-providers.real.ts,
  // which the auth lab shows.
  REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '30',
  COOKIE_SECURE: 'false',
  // Plain HTTP on loopback, whatever NODE_ENV the machine has.
  HTTPS_ONLY: 'false',
  LOGIN_RATE_LIMIT_MAX: '1000',
  // Every tab of every test refreshes from 127.0.0.1, several tests at once.
  REFRESH_RATE_LIMIT_MAX: '1000',
  LOGOUT_RATE_LIMIT_MAX: '1000',
  LOG_LEVEL: 'warn',
  // The auth lab's "Expire access token now" against the server (development only; off by default).
  DEV_LAB_ROUTES: 'true',
  DATABASE_URL: '',
  PGLITE_DATA_DIR: '',
};

/**
 * Browser tests of the showcase against the reference server, over real HTTP, in Debian's Chromium
 * (or the browser at CHROME_BIN). `npm run test:e2e:real` builds them first. The processes:
 * - the reference server (its built `dist/main.js`, embedded in-memory database, demo data) with a
 *   60-second access token, which no test waits for: a test expires it through the lab's "Expire
 *   access token now" (the development-only lab route), so it never runs out by chance on a loaded
 *   machine; and `COOKIE_SECURE=false`, since the page is served over plain http://127.0.0.1;
 * - the showcase's production build with the `real` configuration, served by e2e/serve-showcase.mjs,
 *   which forwards /auth and /api to the server: one origin, as behind a production reverse proxy,
 *   so the SameSite=Strict cookie travels and nothing needs CORS;
 * - the same with the `real-zone` configuration (zone.js instead of zoneless), where the project
 *   `real-zone` runs only the tests tagged @zone, to keep the added time small;
 * - the same with the `real-fetch` configuration (HttpClient over fetch, `withFetch()`, instead of
 *   XMLHttpRequest), where the project `real-fetch` runs real-server.spec.ts: the cookie flow
 *   (`withCredentials`) over fetch;
 * - for the project `real-proactive` (real-server-proactive.spec.ts), a second server whose access
 *   token lives 10 seconds, and the `real` build once more with its proxy pointed there: refreshed
 *   ahead of expiry on real time (the tests above turn that off, `refreshOnlyOn401`, to see the
 *   refresh a 401 starts);
 * - for the project `real-dpop` (real-server-dpop.spec.ts), a third server with `DPOP=required` and a
 *   60-second token, and the `real-dpop` build (`withDPoP()`, and the auth lab's DPoP card) in front of it.
 */
export default defineConfig({
  testDir: '.',
  outputDir: '../test-results/real-server',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // Most of a test's time is spent waiting for a token to expire, a warning or a deadline: three
  // tests at once (each its own browser context, so cookies, Web Locks and channels stay apart)
  // halve the stage on two cores. A test that counts requests counts its own context's.
  workers: 3,
  fullyParallel: true,
  retries: 0,
  forbidOnly: !!process.env['CI'],
  reporter: [['list'], ['html', { open: 'never', outputFolder: '../playwright-report/real-server' }]],
  use: {
    baseURL: `http://127.0.0.1:${SHOWCASE_PORT}`,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: chromiumLaunchOptions,
  },
  projects: [
    {
      name: 'real',
      testMatch: [
        'real-server.spec.ts',
        'real-server-tabs.spec.ts',
        'real-server-lab.spec.ts',
        'real-server-sign-in-delays.spec.ts',
        'real-server-idle.spec.ts',
        'real-server-layout.spec.ts',
      ],
    },
    {
      name: 'real-proactive',
      testMatch: 'real-server-proactive.spec.ts',
      use: { baseURL: `http://127.0.0.1:${PROACTIVE_SHOWCASE_PORT}` },
    },
    {
      // The cookie flow over fetch (withFetch(), Angular 22's default backend) instead of XMLHttpRequest.
      name: 'real-fetch',
      testMatch: 'real-server.spec.ts',
      use: { baseURL: `http://127.0.0.1:${FETCH_SHOWCASE_PORT}` },
    },
    {
      name: 'real-dpop',
      testMatch: 'real-server-dpop.spec.ts',
      use: { baseURL: `http://127.0.0.1:${DPOP_SHOWCASE_PORT}` },
    },
    {
      name: 'real-zone',
      testMatch: 'real-server-tabs.spec.ts',
      grep: /@zone/,
      use: { baseURL: `http://127.0.0.1:${ZONE_SHOWCASE_PORT}` },
    },
  ],
  webServer: [
    {
      command: 'node projects/reference-server/dist/main.js',
      cwd: '..',
      // Any answer means it listens: a users call without a token is a 401.
      url: `http://127.0.0.1:${SERVER_PORT}/api/v1/users`,
      reuseExistingServer: false,
      env: { ...SERVER_ENV, PORT: String(SERVER_PORT), ACCESS_TOKEN_TTL_SECONDS: '60' },
    },
    {
      command: 'node projects/reference-server/dist/main.js',
      cwd: '..',
      url: `http://127.0.0.1:${PROACTIVE_SERVER_PORT}/api/v1/users`,
      reuseExistingServer: false,
      env: { ...SERVER_ENV, PORT: String(PROACTIVE_SERVER_PORT), ACCESS_TOKEN_TTL_SECONDS: '10' },
    },
    {
      command: 'node projects/reference-server/dist/main.js',
      cwd: '..',
      url: `http://127.0.0.1:${DPOP_SERVER_PORT}/api/v1/users`,
      reuseExistingServer: false,
      env: { ...SERVER_ENV, PORT: String(DPOP_SERVER_PORT), ACCESS_TOKEN_TTL_SECONDS: '60', DPOP: 'required' },
    },
    {
      command: 'node e2e/serve-showcase.mjs dist/showcase-real-dpop/browser',
      cwd: '..',
      url: `http://127.0.0.1:${DPOP_SHOWCASE_PORT}`,
      reuseExistingServer: false,
      env: { PORT: String(DPOP_SHOWCASE_PORT), API_ORIGIN: `http://127.0.0.1:${DPOP_SERVER_PORT}` },
    },
    {
      command: 'node e2e/serve-showcase.mjs dist/showcase-real/browser',
      cwd: '..',
      url: `http://127.0.0.1:${SHOWCASE_PORT}`,
      reuseExistingServer: false,
      env: { PORT: String(SHOWCASE_PORT), API_ORIGIN: `http://127.0.0.1:${SERVER_PORT}` },
    },
    {
      command: 'node e2e/serve-showcase.mjs dist/showcase-real-fetch/browser',
      cwd: '..',
      url: `http://127.0.0.1:${FETCH_SHOWCASE_PORT}`,
      reuseExistingServer: false,
      env: { PORT: String(FETCH_SHOWCASE_PORT), API_ORIGIN: `http://127.0.0.1:${SERVER_PORT}` },
    },
    {
      command: 'node e2e/serve-showcase.mjs dist/showcase-real-zone/browser',
      cwd: '..',
      url: `http://127.0.0.1:${ZONE_SHOWCASE_PORT}`,
      reuseExistingServer: false,
      env: { PORT: String(ZONE_SHOWCASE_PORT), API_ORIGIN: `http://127.0.0.1:${SERVER_PORT}` },
    },
    {
      command: 'node e2e/serve-showcase.mjs dist/showcase-real/browser',
      cwd: '..',
      url: `http://127.0.0.1:${PROACTIVE_SHOWCASE_PORT}`,
      reuseExistingServer: false,
      env: { PORT: String(PROACTIVE_SHOWCASE_PORT), API_ORIGIN: `http://127.0.0.1:${PROACTIVE_SERVER_PORT}` },
    },
  ],
});
