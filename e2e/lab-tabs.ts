import { type BrowserContext, type Page, type Request, expect } from '@playwright/test';

// Tabs of the showcase's auth lab against the reference server, for the browser tests that open
// several: the pages of one browser context share the refresh cookie, the Web Locks, the
// BroadcastChannel and IndexedDB of the origin, as the tabs of one browser window do.

/**
 * Turns `withProactiveRefresh()` off in every tab of `context` (the showcase's `?proactive=off`, kept
 * in each tab's sessionStorage), for the tests that watch the refresh a token's 401 starts: ahead of
 * expiry, a token is refreshed before anyone sees it expire.
 */
export async function refreshOnlyOn401(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => sessionStorage.setItem('showcase.proactive', 'off'));
}

/** Counts the POST /auth/refresh calls that every tab of `context` sends, from now on. */
export function countRefreshes(context: BrowserContext): () => number {
  let count = 0;
  context.on('request', (request) => {
    if (isRefresh(request)) count++;
  });
  return () => count;
}

export function isRefresh(request: Request): boolean {
  return request.method() === 'POST' && new URL(request.url()).pathname === '/auth/refresh';
}

/**
 * Signs in as the demo admin in a first tab, then opens `count - 1` more tabs of the lab at the same
 * moment (they start without an access token and get one through the shared cookie). `query` is
 * added to every tab's first URL.
 */
export async function openTabs(context: BrowserContext, count: number, query = ''): Promise<Page[]> {
  const first = await context.newPage();
  await first.goto(`/login${query}`);
  await first.getByTestId('username').fill('ada');
  await first.getByTestId('password').fill('lovelace');
  await first.getByTestId('login-submit').click();
  await expect(first).toHaveURL(/\/lab$/);
  const others = await Promise.all(Array.from({ length: count - 1 }, () => context.newPage()));
  await Promise.all(others.map((tab) => tab.goto(`/lab${query}`)));
  const tabs = [first, ...others];
  for (const tab of tabs) await expect(tab.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
  return tabs;
}

/**
 * Makes the server refuse the access token the tabs hold, as its expiry would, without waiting for
 * it: the lab's "Expire access token now" (the server's development-only lab route), in the first tab,
 * whose token the others share; `everyTab` for tabs that each hold a token of their own (no cross-tab
 * sync). The servers of these tests issue 60-second tokens, so none runs out during a test on a
 * loaded machine.
 */
export async function expireTokens(tabs: readonly Page[], { everyTab = false } = {}): Promise<void> {
  for (const tab of everyTab ? tabs : tabs.slice(0, 1)) {
    await tab.getByTestId('expire-token').click();
    await expect(tab.getByTestId('token-remaining')).toHaveText('expired (by the lab)');
  }
}

/** Fires the lab's burst of 10 calls in every tab at the same moment. */
export async function fireEverywhere(tabs: readonly Page[]): Promise<void> {
  await Promise.all(tabs.map((tab) => tab.getByTestId('fire-calls').click()));
}

/** Every tab is still signed in, on the lab, with its 10 calls answered 200. */
export async function expectEveryCallSucceeded(tabs: readonly Page[]): Promise<void> {
  for (const tab of tabs) {
    await expect(tab.getByTestId('success-count')).toHaveText('10');
    await expect(tab.getByTestId('failure-count')).toHaveText('0');
    await expect(tab).toHaveURL(/\/lab/);
    await expect(tab.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
  }
}
