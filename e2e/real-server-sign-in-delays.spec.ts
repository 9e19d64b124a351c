import { type Page, expect, test } from '@playwright/test';

// The reference server delays sign-in attempts per account once they keep failing, so a password
// guesser gets a few tries a day. A browser that signed in to the account before holds a device
// cookie, and its sign-ins have delays of their own: the guesser cannot lock the owner out. Here in
// Chromium: the cookie as the browser keeps it, and the owner signing in through the page while
// the account is waiting. Signs in as the viewer `alan`, whom no other test of this server uses.

test('a browser that signed in before signs in at once while a password guesser keeps the account waiting', async ({
  page,
  context,
  request,
}) => {
  await signInAs(page, 'alan', 'turing');
  const device = (await context.cookies()).find((cookie) => cookie.name === 'loginDevice');
  expect(device, 'the browser holds the device cookie').toMatchObject({
    httpOnly: true,
    sameSite: 'Strict',
    path: '/auth/login',
  });
  expect(await page.evaluate(() => document.cookie)).not.toContain('loginDevice');
  await page.getByTestId('logout').click();
  await expect(page).toHaveURL(/\/login/);

  // Someone without the cookie guesses alan's password: five tries go through, then each checked try
  // doubles the wait before the next. Three more waited-out tries make the account wait 8 s.
  const guess = (password: string) => request.post('/auth/login', { data: { username: 'alan', password } });
  const burst = await Promise.all(Array.from({ length: 6 }, (_, i) => guess(`guess-${i}`)));
  expect(burst.map((response) => response.status()).sort()).toEqual([401, 401, 401, 401, 401, 429]);
  for (let round = 0; round < 3; round++) {
    const blocked = await guess('guess');
    expect(blocked.status()).toBe(429);
    await page.waitForTimeout(Number(blocked.headers()['retry-after']) * 1000 + 100);
    expect((await guess('guess')).status()).toBe(401);
  }
  const refused = await guess('turing');
  expect(refused.status(), 'even the right password waits, from a client that is not a trusted device').toBe(429);
  expect(Number(refused.headers()['retry-after'])).toBeGreaterThanOrEqual(5);

  await signInAs(page, 'alan', 'turing');

  await expect(page.getByTestId('signed-in-as')).toHaveText('Signed in as alan');
});

async function signInAs(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('username').fill(username);
  await page.getByTestId('password').fill(password);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/lab$/);
}
