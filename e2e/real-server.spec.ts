import { type Page, type Request, expect, test } from '@playwright/test';

import { expireTokens, refreshOnlyOn401 } from './lab-tabs';

// The showcase's `real` build against the reference server (see playwright.real.config.ts): real
// JWTs, a real HttpOnly refresh cookie, a real database. What the page shows is checked against what
// the browser actually sent and received.

// These tests watch the refresh that a refused token's 401 starts: no refresh ahead of expiry.
test.beforeEach(({ context }) => refreshOnlyOn401(context));

test('login sets a refresh cookie that page scripts cannot read', async ({ page, context }) => {
  await signIn(page);

  const cookies = await context.cookies();
  const refresh = cookies.find((cookie) => cookie.name === 'refreshToken');
  expect(refresh, 'the browser holds the refresh cookie').toBeDefined();
  expect(refresh).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/auth/refresh' });
  expect(refresh?.value).toMatch(/^[A-Za-z0-9_-]{70}$/);
  // Neither document.cookie nor the access token (in memory only) give it away.
  expect(await page.evaluate(() => document.cookie)).not.toContain('refreshToken');
  expect(await page.evaluate(() => document.cookie)).not.toContain(refresh?.value ?? '');
  expect(
    await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })),
  ).not.toContain(refresh?.value ?? '');
  await expect(page.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
  await expect(page.getByTestId('real-server-note')).toBeVisible();
  // The server's own "expire now" (DEV_LAB_ROUTES=true here), but no in-memory switch to revoke.
  await expect(page.getByTestId('expire-token')).toBeVisible();
  await expect(page.getByTestId('revoke-refresh')).toHaveCount(0);
});

test('after the access token expires, a burst of 10 calls makes exactly one POST /auth/refresh and 10 successes', async ({
  page,
}) => {
  const network = recordNetwork(page);
  await signIn(page);
  await expect(page.getByTestId('token-remaining')).toHaveText(/s left/);

  // The server stops accepting the token, as at its expiry; nothing is refreshed yet.
  await expireTokens([page]);
  expect(network.refreshes()).toHaveLength(0);
  const callsBefore = network.userCalls().length;

  await page.getByTestId('fire-calls').click();

  await expect(page.getByTestId('success-count')).toHaveText('10');
  await expect(page.getByTestId('failure-count')).toHaveText('0');
  await expect(page.getByTestId('burst-refresh-count')).toHaveText('1');
  await expect(page.getByTestId('refresh-count')).toHaveText('1');
  // What the browser itself sent: one refresh, and every call answered 200 in the end.
  expect(network.refreshes()).toHaveLength(1);
  const answers = network.userCalls().slice(callsBefore);
  const finalStatuses = new Map<string, number>();
  for (const { url, status } of answers) finalStatuses.set(url, status);
  expect(finalStatuses.size).toBe(10);
  expect([...finalStatuses.values()].every((status) => status === 200)).toBe(true);
  expect(answers.filter(({ status }) => status === 200)).toHaveLength(10);
  expect(answers.filter(({ status }) => status === 401).length).toBeGreaterThan(0);
  // The refresh cookie travelled with HttpClient's backend of this build: fetch in `real-fetch`.
  expect(network.kinds()).toEqual([test.info().project.name === 'real-fetch' ? 'fetch' : 'xhr']);
  // The timeline: one refresh bar, and the first call repeated after it and answered 200.
  await expect(page.getByTestId('refresh-bar')).toHaveCount(1);
  const firstCall = page.getByTestId('call-row').first();
  await expect(firstCall).toContainText('repeat');
  await expect(firstCall).toContainText('200');
  await page.screenshot({ path: 'test-results/screenshots/real-server-auth-lab.png', fullPage: true });
});

test('a refresh lost to the network keeps the session, and the next burst refreshes; a refused refresh ends it', async ({
  page,
  context,
}) => {
  const network = recordNetwork(page);
  await signIn(page);
  await expireTokens([page]);

  // The network drops the refresh: the burst's calls fail, but nobody is signed out.
  await page.route('**/auth/refresh', (route) => route.abort('failed'));
  await page.getByTestId('fire-calls').click();
  await expect(page.getByTestId('failure-count')).toHaveText('10');
  await expect(page).toHaveURL(/\/lab$/);
  await expect(page.getByTestId('signed-in-as')).toHaveText('Signed in as ada');

  // The network is back: the next burst refreshes once with the same cookie, and every call succeeds.
  await page.unroute('**/auth/refresh');
  const refreshesBefore = network.refreshes().length;
  await page.getByTestId('fire-calls').click();
  await expect(page.getByTestId('success-count')).toHaveText('10');
  expect(network.refreshes().length - refreshesBefore).toBe(1);

  // The server refuses the refresh token (here: the cookie is gone): the session ends.
  await expireTokens([page]);
  await context.clearCookies();
  await page.getByTestId('fire-calls').click();
  await expect(page).toHaveURL(/\/login\?reason=expired/);
});

test('a reload keeps the session through the cookie; sign-out revokes it on the server', async ({ page, context }) => {
  const network = recordNetwork(page);
  await signIn(page);

  await page.reload();
  await expect(page).toHaveURL(/\/lab$/);
  await expect(page.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
  expect(network.refreshes()).toHaveLength(1);

  const stolen = (await context.cookies()).find((cookie) => cookie.name === 'refreshToken')?.value;
  await page.getByTestId('logout').click();
  await expect(page).toHaveURL(/\/login/);
  await expect.poll(async () => (await context.cookies()).some((cookie) => cookie.name === 'refreshToken')).toBe(false);
  // A copy of the cookie taken before the sign-out is worth nothing now.
  const replay = await page.request.post('/auth/refresh', { headers: { Cookie: `refreshToken=${stolen}` } });
  expect(replay.status()).toBe(401);
  expect((await replay.json()) as unknown).toMatchObject({ error: { code: 'InvalidRefreshToken' } });
});

test('the users page pages through the server’s users', async ({ page }) => {
  await signIn(page);
  await page.getByRole('link', { name: 'Users' }).click();
  await expect(page.getByTestId('user-row')).toHaveCount(10);
  await expect(page.getByText('1 – 10 of 42')).toBeVisible();
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page.getByText('11 – 20 of 42')).toBeVisible();
  await expect(page.getByTestId('user-row').first().locator('td').first()).toHaveText('11');
  await page.screenshot({ path: 'test-results/screenshots/real-server-users.png', fullPage: true });
});

/** Signs in as the demo admin from the login page and waits for the auth lab. */
async function signIn(page: Page): Promise<void> {
  await page.goto('/login');
  await expect(page.getByText('The reference server created them on its first start.')).toBeVisible();
  await page.getByTestId('username').fill('ada');
  await page.getByTestId('password').fill('lovelace');
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/lab$/);
}

/** Records the browser's own requests: refresh calls, and answers to users calls. */
function recordNetwork(page: Page) {
  const refreshes: Request[] = [];
  const userCalls: { url: string; status: number }[] = [];
  /** How the page sent its /auth and /api requests: 'xhr', or 'fetch' in the `real-fetch` build. */
  const kinds = new Set<string>();
  page.on('request', (request) => {
    if (/^\/(auth|api)\//.test(new URL(request.url()).pathname)) kinds.add(request.resourceType());
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/auth/refresh') refreshes.push(request);
  });
  page.on('response', (response) => {
    if (/\/api\/v1\/users\/\d+$/.test(new URL(response.url()).pathname)) {
      userCalls.push({ url: response.url(), status: response.status() });
    }
  });
  return { refreshes: () => [...refreshes], userCalls: () => [...userCalls], kinds: () => [...kinds] };
}
