import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '../e2e/chromium-launch-options.mjs';

/**
 * The browser tests of an integration app, run by run.mjs, which starts the app's server (APP_URL)
 * and the API behind it: the stub API (STUB_URL) for browser.spec.mjs, the reference server for
 * browser-real.spec.mjs (BROWSER_SPEC names the one to run). Debian's Chromium, or the browser at
 * CHROME_BIN; Playwright never downloads one.
 */
export default defineConfig({
  testDir: '.',
  testMatch: process.env['BROWSER_SPEC'] ?? 'browser.spec.mjs',
  outputDir: '.results',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env['CI'],
  reporter: [['list']],
  use: {
    baseURL: process.env['APP_URL'],
    trace: 'retain-on-failure',
    launchOptions: chromiumLaunchOptions,
  },
});
