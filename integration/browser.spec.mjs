/* global fetch */
import { expect, test } from '@playwright/test';

const stubUrl = process.env['STUB_URL'];
// What the driver found installed in the app: 'zone.js' or 'zoneless'.
const changeDetection = process.env['APP_CHANGE_DETECTION'];

test('an expired token and a burst of 5 calls make exactly one refresh', async ({ page, context, baseURL }) => {
  await fetch(`${stubUrl}/__reset`, { method: 'POST' });
  // The session: an expired access token (read by the app at start-up) and the refresh cookie.
  await context.addCookies([
    { name: 'at', value: 'at.ada.0', url: baseURL },
    { name: 'rt', value: 'rt.ada', url: baseURL },
  ]);
  const wire = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/api/') || pathname.startsWith('/auth/')) {
      wire.push({
        request: `${request.method()} ${pathname}`,
        authorization: request.headers()['authorization'],
        // 'fetch' or 'xhr': which HttpClient backend the browser saw.
        backend: request.resourceType(),
      });
    }
  });
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  // Chromium logs every 401 as "Failed to load resource"; those are expected, anything else is not.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().includes('status of 401')) errors.push(message.text());
  });

  await page.goto('/burst');
  // Rendered by the server, then hydrated (a click before hydration is replayed after it).
  await expect(page.locator('app-root')).toHaveAttribute('ng-server-context', 'ssr');
  await page.locator('#burst').click();
  await expect(page.locator('#burst-status')).toHaveText('done');
  await expect(page.locator('.burst-result')).toHaveText(Array(5).fill('ada at.ada.1'));

  expect(wire.filter((call) => call.request === 'POST /auth/refresh')).toHaveLength(1);
  const profileCalls = wire.filter((call) => call.request === 'GET /api/profile');
  expect(profileCalls.map((call) => call.authorization).sort()).toEqual([
    ...Array(5).fill('Bearer at.ada.0'),
    ...Array(5).fill('Bearer at.ada.1'),
  ]);

  const calls = await (await fetch(`${stubUrl}/__calls`)).json();
  expect(
    calls.map((call) => `${call.method} ${call.path} ${call.token ?? call.refreshUser} ${call.status}`).sort(),
  ).toEqual(
    [
      ...Array(5).fill('GET /api/profile at.ada.0 401'),
      ...Array(5).fill('GET /api/profile at.ada.1 200'),
      'POST /auth/refresh ada 200',
    ].sort(),
  );
  // Both apps call over fetch: Angular 21 with withFetch(), Angular 22 by default.
  expect(new Set(wire.map((call) => call.backend))).toEqual(new Set(['fetch']));
  // The app runs with zone.js or without it, as its build says.
  expect(await page.evaluate(() => typeof globalThis.Zone)).toBe(
    changeDetection === 'zone.js' ? 'function' : 'undefined',
  );
  expect(errors).toEqual([]);
});
