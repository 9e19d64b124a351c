import { defineConfig } from '@playwright/test';

import base from './playwright.config';

/**
 * `npm run docs:screenshots`: the README's pictures of every page at 1280 and 360 px wide, written to
 * docs/screenshots. Not part of the tests: rerun it when the showcase's look changes, look at the
 * pictures, and commit them.
 */
export default defineConfig({
  ...base,
  testMatch: 'docs-screenshots.spec.ts',
  reporter: 'list',
  use: { ...base.use, baseURL: 'http://127.0.0.1:4311', trace: 'off', screenshot: 'off' },
  webServer: {
    ...base.webServer,
    command: 'node e2e/serve-showcase.mjs dist/showcase/browser',
    env: { PORT: '4311' },
    url: 'http://127.0.0.1:4311',
  },
});
