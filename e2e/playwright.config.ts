import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './chromium-launch-options.mjs';

/**
 * Browser tests of the showcase's production build, in Debian's Chromium (or the browser at
 * CHROME_BIN). Playwright never downloads a browser here.
 */
export default defineConfig({
  testDir: '.',
  // real-server.spec.ts has its own configuration (playwright.real.config.ts): it needs the reference server.
  testMatch: 'showcase.spec.ts',
  outputDir: '../test-results/showcase',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // Each test's page runs its own in-memory backend: nothing is shared, and two at once use both cores.
  workers: 2,
  fullyParallel: true,
  retries: 0,
  forbidOnly: !!process.env['CI'],
  reporter: [['list'], ['html', { open: 'never', outputFolder: '../playwright-report/showcase' }]],
  use: {
    baseURL: 'http://127.0.0.1:4310',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: chromiumLaunchOptions,
  },
  webServer: {
    command: 'node e2e/serve-showcase.mjs dist/showcase/browser',
    cwd: '..',
    url: 'http://127.0.0.1:4310',
    reuseExistingServer: !process.env['CI'],
  },
});
