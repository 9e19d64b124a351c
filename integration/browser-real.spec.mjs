import { expect, test } from '@playwright/test';

// The app against the reference server (run.mjs starts both): strict rotation (no overlap window),
// the refresh cookie on Path=/, short access tokens. A user signs in, opens /account, which the
// server renders signed in; the browser must go on from there: no refresh on hydration, and after
// the access token expired one refresh with the cookie the render rotated, and no sign-out.

const accessTokenSeconds = Number(process.env['ACCESS_TOKEN_SECONDS']);

test('rendered signed in on the server, then one refresh in the browser after expiry, with the rotated cookie', async ({
  page,
  context,
}) => {
  // Sign in as the login page would (same origin, through the app's proxy): the cookie jar gets the
  // HttpOnly refresh cookie, and no access token lives anywhere yet.
  const login = await context.request.post('/auth/login', { data: { username: 'ada', password: 'lovelace' } });
  expect(login.status()).toBe(200);
  const signedIn = (await context.cookies()).find((cookie) => cookie.name === 'refreshToken');
  expect(signedIn).toMatchObject({ httpOnly: true, path: '/', sameSite: 'Strict' });

  const wire = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/api/') || pathname.startsWith('/auth/')) wire.push(`${request.method()} ${pathname}`);
  });
  const refreshAnswers = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname === '/auth/refresh') refreshAnswers.push(response.status());
  });

  await page.goto('/account');
  await expect(page.locator('app-root')).toHaveAttribute('ng-server-context', 'ssr');
  await expect(page.locator('#account-name')).toHaveText('Ada Lovelace');
  // The render refreshed with the browser's cookie and handed the rotated one back with the page.
  const rendered = (await context.cookies()).find((cookie) => cookie.name === 'refreshToken');
  expect(rendered?.value).not.toBe(signedIn?.value);
  // Hydrated with the render's answer and token (the app's start-up requests all done): the browser
  // itself refreshed nothing.
  await page.waitForLoadState('networkidle');
  expect(wire.filter((call) => call === 'POST /auth/refresh')).toEqual([]);

  // Past the access token's life (and far past the overlap window, which is 0): the next call gets a
  // 401, the browser refreshes once, with the cookie the render rotated, and goes on.
  await page.waitForTimeout((accessTokenSeconds + 1) * 1000);
  await page.locator('#account-reload').click();
  await expect(page.locator('#account-loads')).toContainText('Ada Lovelace,Ada Lovelace');

  expect(refreshAnswers).toEqual([200]);
  expect(await page.locator('#account-name').textContent()).toBe('Ada Lovelace');
  const after = (await context.cookies()).find((cookie) => cookie.name === 'refreshToken');
  expect(after?.value).not.toBe(rendered?.value);
});
