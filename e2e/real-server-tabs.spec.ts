import { type BrowserContext, type Cookie, expect, test } from '@playwright/test';

import {
  countRefreshes,
  expireTokens,
  expectEveryCallSucceeded,
  fireEverywhere,
  isRefresh,
  openTabs,
  refreshOnlyOn401,
} from './lab-tabs';

// Several tabs of the showcase's `real` build against the reference server (see
// playwright.real.config.ts): the pages of one browser context, so they share the refresh cookie, the
// Web Locks and the BroadcastChannel of the origin, as the tabs of one browser window do. An expiry is
// the server refusing the tabs' token (the lab's "Expire access token now"); the server accepts a
// refresh cookie it has just rotated for 30 s.

test.beforeEach(({ context }) => refreshOnlyOn401(context));

const MADE_THE_CALL = 'refreshed (this tab made the call)';
const TOOK_ANOTHER_TABS_TOKEN = [
  "waited for another tab's refresh and took its token",
  'received a token from another tab',
];

for (const count of [3, 5]) {
  test(`${count} tabs of the lab opened at the same moment after one sign-in all keep the session`, async ({
    context,
  }) => {
    const refreshes = countRefreshes(context);
    const tabs = await openTabs(context, count);

    for (const tab of tabs) {
      await expect(tab).toHaveURL(/\/lab$/);
      await expect(tab.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
      await expect(tab.getByTestId('cross-tab-sync')).toHaveText('on');
    }
    // Each new tab asked the tab that signed in for its token instead of refreshing with the cookie.
    expect(refreshes(), `refresh calls for ${count - 1} new tabs`).toBe(0);
  });
}

test(
  '3 tabs whose tokens expire together make one refresh per expiry, and every call succeeds',
  { tag: '@zone' },
  async ({ context }) => {
    const refreshes = countRefreshes(context);
    const tabs = await openTabs(context, 3);
    // The zone.js build runs in the real-zone project: check that it is the one served there.
    expect(await tabs[0]?.evaluate(() => 'Zone' in window)).toBe(test.info().project.name === 'real-zone');

    for (const expiry of [1, 2]) {
      await expireTokens(tabs);
      const before = refreshes();

      await fireEverywhere(tabs);

      await expectEveryCallSucceeded(tabs);
      expect(refreshes() - before, `refresh calls at expiry ${expiry}`).toBe(1);
      // What each tab says about it: one made the call, the others took its token.
      const lines = await Promise.all(tabs.map((tab) => tab.getByTestId('last-refresh').textContent()));
      expect(lines.filter((line) => line === MADE_THE_CALL)).toHaveLength(1);
      expect(lines.filter((line) => TOOK_ANOTHER_TABS_TOKEN.includes(line ?? ''))).toHaveLength(tabs.length - 1);
    }
    // On a 360 px screen the Tabs card fits: nothing of it is cut off or needs scrolling sideways.
    await tabs[0]?.setViewportSize({ width: 360, height: 800 });
    const card = tabs[0]?.locator('app-lab-tabs-card mat-card');
    expect(await card?.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    expect((await card?.boundingBox())?.width).toBeLessThanOrEqual(360);
    await tabs[0]?.screenshot({ path: 'test-results/screenshots/real-server-tabs-360.png', fullPage: true });
  },
);

test('without cross-tab sync (?crossTab=off) the server’s overlap window keeps every tab signed in', async ({
  context,
}) => {
  const refreshes = countRefreshes(context);
  const tabs = await openTabs(context, 3, '?crossTab=off');
  for (const tab of tabs) await expect(tab.getByTestId('cross-tab-sync')).toHaveText('off');

  for (const expiry of [1, 2]) {
    await expireTokens(tabs, { everyTab: true });
    const before = refreshes();

    await fireEverywhere(tabs);

    await expectEveryCallSucceeded(tabs);
    // Each tab refreshes for itself, all with the same cookie at once: the first call rotates it, and
    // the server answers the others (the rotated cookie, within its window) instead of ending the session.
    expect(refreshes() - before, `refresh calls at expiry ${expiry}`).toBe(tabs.length);
    for (const tab of tabs) await expect(tab.getByTestId('last-refresh')).toHaveText(MADE_THE_CALL);
  }
});

test('a tab closed while it holds the refresh lock does not strand the others', async ({ context }) => {
  const refreshes = countRefreshes(context);
  const [holder, ...others] = await openTabs(context, 3);
  if (!holder) throw new Error('no tab');
  await expireTokens([holder, ...others]);
  const before = refreshes();

  // The holder's refresh never gets an answer, so it keeps the lock until the tab goes.
  await holder.route('**/auth/refresh', () => undefined);
  const held = holder.waitForRequest(isRefresh);
  await holder.getByTestId('fire-calls').click();
  await held;
  await fireEverywhere(others);
  for (const tab of others) await expect(tab.getByTestId('call-row').first()).toContainText('queued');
  expect(refreshes() - before).toBe(1);

  await holder.close();

  // Well within the 30 s after which a tab would refresh without the lock: the lock was released.
  for (const tab of others) await expect(tab.getByTestId('success-count')).toHaveText('10', { timeout: 10_000 });
  await expectEveryCallSucceeded(others);
  expect(refreshes() - before).toBe(2);
});

test('signing out in one tab takes every other tab to the sign-in page within a second', async ({ context }) => {
  const [first, ...others] = await openTabs(context, 3);
  if (!first) throw new Error('no tab');

  await first.getByTestId('logout').click();

  for (const tab of others) {
    await expect(tab).toHaveURL(/\/login\?reason=signed-out/, { timeout: 1_000 });
    await expect(tab.getByTestId('session-message')).toHaveText('You signed out in another tab.', { timeout: 1_000 });
  }
  await expect(first).toHaveURL(/\/login$/);
  await expect(first.getByTestId('session-message')).toHaveCount(0);
});

test('a refresh answer lost on the way keeps the session: the server still takes the cookie it has just rotated', async ({
  context,
}) => {
  const refreshes = countRefreshes(context);
  const [tab] = await openTabs(context, 1);
  if (!tab) throw new Error('no tab');
  await expireTokens([tab]);
  const old = await refreshCookie(context);

  // The refresh reaches the server, which rotates the cookie, and the answer is lost on the way back.
  let lost: { status: number; cookie: string | undefined } | undefined;
  await tab.route(
    '**/auth/refresh',
    async (route) => {
      const answer = await route.fetch();
      lost = {
        status: answer.status(),
        cookie: /refreshToken=([^;]+)/.exec(answer.headers()['set-cookie'] ?? '')?.[1],
      };
      await route.abort('failed');
    },
    { times: 1 },
  );
  await tab.getByTestId('fire-calls').click();
  await expect(tab.getByTestId('failure-count')).toHaveText('10');
  await expect(tab.getByTestId('last-refresh')).toHaveText('refresh failed');
  expect(lost?.status, 'the server answered the lost refresh').toBe(200);
  expect(lost?.cookie, 'with a new cookie').toMatch(/^[A-Za-z0-9_-]+$/);
  expect(lost?.cookie).not.toBe(old.value);
  // The browser never saw that answer, so it must still hold the old cookie; but Playwright's
  // route.fetch() stores the new one in the context's jar: put the old one back.
  if ((await refreshCookie(context)).value !== old.value) await context.addCookies([old]);
  expect((await refreshCookie(context)).value).toBe(old.value);

  // The next call refreshes with the old cookie, the immediate predecessor of the live one.
  const before = refreshes();
  await tab.getByTestId('fire-calls').click();

  await expectEveryCallSucceeded([tab]);
  expect(refreshes() - before).toBe(1);
  await expect(tab.getByTestId('last-refresh')).toHaveText(MADE_THE_CALL);
  // The server answered with the live cookie, the one of the lost answer, rather than rotating again.
  expect((await refreshCookie(context)).value).toBe(lost?.cookie);
});

// Page loads: a tab that reloads, or leaves for a sign-in page and comes back, starts with nothing in
// memory, and its Web Locks are gone with the page it left.
test.describe('across page loads', () => {
  test('a sign-in again through a new page of the tab that refreshed last reaches every tab, with no 401 and no refresh', async ({
    context,
  }) => {
    const [first, ...others] = await openTabs(context, 3);
    if (!first) throw new Error('no tab');
    await expireTokens([first, ...others]);
    await first.getByTestId('fire-calls').click(); // the first tab makes the last refresh
    await expectEveryCallSucceeded([first]);
    for (const tab of others) await expect(tab.getByTestId('last-refresh')).toHaveText(TOOK_ANOTHER_TABS_TOKEN[1]!);
    await first.getByTestId('logout').click();
    for (const tab of others) await expect(tab).toHaveURL(/\/login\?reason=signed-out/);
    const refreshes = countRefreshes(context);
    const unauthorized = countStatus(context, 401);

    // A full page load, as on the way back from an identity server's sign-in page.
    await first.goto('/login');
    await first.getByTestId('username').fill('ada');
    await first.getByTestId('password').fill('lovelace');
    await first.getByTestId('login-submit').click();
    await expect(first).toHaveURL(/\/lab$/);

    // The other tabs take the new token and leave the sign-in page on their own.
    for (const tab of others) {
      await expect(tab).toHaveURL(/\/lab$/, { timeout: 2_000 });
      await expect(tab.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
    }
    // Their token came from the first tab: a restore of their own would have been a refresh.
    expect(refreshes(), 'refresh calls').toBe(0);
    expect(unauthorized(), '401 answers').toBe(0);
    await fireEverywhere(others);
    await expectEveryCallSucceeded(others);
  });

  test('a reload of the tab that refreshed last takes the live token, and its next refresh reaches every tab', async ({
    context,
  }) => {
    const tabs = await openTabs(context, 3);
    const [first, ...others] = tabs;
    if (!first) throw new Error('no tab');
    await expireTokens(tabs);
    await first.getByTestId('fire-calls').click();
    await expectEveryCallSucceeded([first]);
    const refreshes = countRefreshes(context);

    await first.reload();
    await expect(first.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
    expect(refreshes(), 'refresh calls for the reload').toBe(0);

    await expireTokens(tabs);
    await first.getByTestId('fire-calls').click();
    await expectEveryCallSucceeded([first]);
    for (const tab of others) await expect(tab.getByTestId('last-refresh')).toHaveText(TOOK_ANOTHER_TABS_TOKEN[1]!);
    const unauthorized = countStatus(context, 401);
    await fireEverywhere(others);

    await expectEveryCallSucceeded(others);
    expect(refreshes(), 'refresh calls for the reload and one expiry').toBe(1);
    expect(unauthorized(), '401 answers in the tabs that took the token').toBe(0);
  });

  test('a tab opened after every other tab closed restores the session with one refresh, and the next tab takes its token', async ({
    context,
  }) => {
    const tabs = await openTabs(context, 2);
    for (const tab of tabs) await tab.close();
    const refreshes = countRefreshes(context);

    const alone = await context.newPage();
    await alone.goto('/lab');
    await expect(alone.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
    expect(refreshes(), 'refresh calls with no other tab').toBe(1);

    const next = await context.newPage();
    await next.goto('/lab');
    await expect(next.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
    expect(refreshes(), 'refresh calls for the second tab').toBe(1);

    await expireTokens([alone, next]);
    await fireEverywhere([alone, next]);
    await expectEveryCallSucceeded([alone, next]);
    expect(refreshes(), 'refresh calls after one expiry').toBe(2);
  });
});

/** Counts the answers with `status` that every tab of `context` gets, from now on. */
function countStatus(context: BrowserContext, status: number): () => number {
  let count = 0;
  context.on('response', (response) => {
    if (response.status() === status) count++;
  });
  return () => count;
}

/** The browser's refresh cookie. */
async function refreshCookie(context: BrowserContext): Promise<Cookie> {
  const cookie = (await context.cookies()).find(({ name }) => name === 'refreshToken');
  if (!cookie) throw new Error('the browser holds no refresh cookie');
  return cookie;
}
