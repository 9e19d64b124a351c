import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '../e2e/chromium-launch-options.mjs';

/**
 * The browser test of an integration app, run by run.mjs, which starts the app's server (APP_URL)
 * and the stub API (STUB_URL). Debian's Chromium, or the browser at CHROME_BIN; Playwright never
 * downloads one.
 */
export default defineConfig({
  testDir: '.',
  testMatch: 'browser.spec.mjs',
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
