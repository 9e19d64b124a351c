import type { BrowserContext, Page } from '@playwright/test';

import { APP_ORIGIN } from './playwright.bff.config';
import { type BffStack, expect, test } from './bff/bff-test';
import { openSignedInTabs } from './bff/open-signed-in-tabs';
import type { BalancedRequest } from './bff/round-robin-balancer';
import { type OtherOrigin, startOtherOrigin } from './bff/start-other-origin';

// The BFF's CSRF defence in Chromium, with a signed-in tab of the showcase's bff build open: pages of
// other origins try the BFF's API and sign-out with the user's cookie, and the app's own page tries
// them without the x-csrf header. Their requests are read where they arrive (the balancer's log: what
// Chromium sent, and what the BFF answered), and the API (the provider's userinfo) must not be called.
// Chromium's sites: 127.0.0.1 and localhost are two (hosts differ), 127.0.0.1:4330 and 127.0.0.1:4406
// are one (ports do not count); so the SameSite=Strict session cookie goes with the requests of a page
// on 127.0.0.1:4406, never with those of a page on localhost:4406.

/** Where the pages of other origins are served. */
const OTHER_PORT = 4406;
/** A page of another site. */
const OTHER_SITE = `http://localhost:${OTHER_PORT}`;
/** A page of the same site, another origin: a sibling app on another port of 127.0.0.1. */
const SAME_SITE = `http://127.0.0.1:${OTHER_PORT}`;

test.describe('requests that the BFF refuses with 403, the API never called and the session kept', () => {
  let context: BrowserContext;
  let tab: Page;
  let otherOrigin: OtherOrigin;

  test.beforeAll(async () => {
    otherOrigin = await startOtherOrigin(
      OTHER_PORT,
      `<!doctype html><title>another origin</title>
        <form method="post" action="${APP_ORIGIN}/bff/logout"><input name="x-csrf" value="1"></form>`,
    );
  });
  test.afterAll(() => otherOrigin.close());

  // With `stack`, so that the BFF runs before the sign-in.
  test.beforeEach(async ({ newContext, stack }) => {
    void stack;
    context = await newContext();
    [tab] = await openSignedInTabs(context, 'ada', 1, 1);
  });

  test('from a page of another site: its form POST and its fetches (the Strict cookie withheld by Chromium)', async ({
    stack,
  }) => {
    const refused = await attemptsFrom(stack, context, OTHER_SITE);

    // A no-cors GET has no Origin; a preflight never carries cookies.
    expect(refused.map(summary)).toEqual([
      'POST /bff/logout 403 cookie:false site:cross-site origin:http://localhost:4406 x-csrf:null',
      'GET /api/me 403 cookie:false site:cross-site origin:null x-csrf:null',
      'OPTIONS /api/me 403 cookie:false site:cross-site origin:http://localhost:4406 x-csrf:null',
    ]);
    await expectSessionKept(stack, tab);
  });

  test('from a page of the same site on another origin: its requests carry the session cookie, and are refused all the same', async ({
    stack,
  }) => {
    const refused = await attemptsFrom(stack, context, SAME_SITE);

    expect(refused.map(summary)).toEqual([
      'POST /bff/logout 403 cookie:true site:same-site origin:http://127.0.0.1:4406 x-csrf:null',
      'GET /api/me 403 cookie:true site:same-site origin:null x-csrf:null',
      'OPTIONS /api/me 403 cookie:false site:same-site origin:http://127.0.0.1:4406 x-csrf:null',
    ]);
    await expectSessionKept(stack, tab);
  });

  test("from the app's own page without the x-csrf header: the API, the session and the sign-out", async ({
    stack,
  }) => {
    const before = await stack.provider.stats();
    const mark = stack.balancer.log.length;

    const answers = await tab.evaluate(async () =>
      Promise.all(
        [fetch('/api/me'), fetch('/bff/session'), fetch('/bff/logout', { method: 'POST' })].map(async (call) => {
          const response = await call;
          return `${response.status} ${((await response.json()) as { error: { code: string } }).error.code}`;
        }),
      ),
    );

    expect(answers).toEqual(['403 CsrfRefused', '403 CsrfRefused', '403 CsrfRefused']);
    const sent = stack.balancer.log.slice(mark);
    expect(sent.every(({ sessionCookie, secFetchSite }) => sessionCookie && secFetchSite === 'same-origin')).toBe(true);
    expect((await stack.provider.stats()).userinfo).toEqual(before.userinfo);
    await expectSessionKept(stack, tab);
  });
});

/**
 * Opens a page of `origin` in the signed-in browser, which sends the BFF a form POST to /bff/logout
 * (a navigation), a no-cors GET of /api/me with credentials, and a fetch of /api/me with `x-csrf`,
 * which needs a preflight. Answers what reached the BFF, once each attempt has ended; asserts that
 * the API was not called.
 */
async function attemptsFrom(stack: BffStack, context: BrowserContext, origin: string): Promise<BalancedRequest[]> {
  const before = await stack.provider.stats();
  const mark = stack.balancer.log.length;
  const page = await context.newPage();
  await page.goto(`${origin}/`);

  const fetched = await page.evaluate(async (app) => {
    const attempt = async (init: RequestInit) => {
      try {
        const response = await fetch(`${app}/api/me`, { credentials: 'include', ...init });
        return `${response.type} ${response.status}`;
      } catch (error) {
        return String(error);
      }
    };
    return { noCors: await attempt({ mode: 'no-cors' }), withHeader: await attempt({ headers: { 'x-csrf': '1' } }) };
  }, APP_ORIGIN);
  // Nothing for the script to read, whatever the BFF said; the preflight's refusal is a network error.
  expect(fetched).toEqual({ noCors: 'opaque 0', withHeader: 'TypeError: Failed to fetch' });

  const navigation = page.waitForResponse(`${APP_ORIGIN}/bff/logout`);
  await page.locator('form').evaluate((form: HTMLFormElement) => form.submit());
  expect((await navigation).status()).toBe(403);
  await expect(page.locator('body')).toContainText('CsrfRefused');

  expect((await stack.provider.stats()).userinfo, 'calls of the API').toEqual(before.userinfo);
  // The form POST first, then the fetches (the 403 page's own favicon aside).
  const sent = stack.balancer.log.slice(mark).filter(({ path }) => path !== '/favicon.ico');
  return [...sent.filter(({ method }) => method === 'POST'), ...sent.filter(({ method }) => method !== 'POST')];
}

function summary({ method, path, status, sessionCookie, secFetchSite, origin, xCsrf }: BalancedRequest): string {
  return `${method} ${path} ${status} cookie:${sessionCookie} site:${secFetchSite} origin:${origin} x-csrf:${xCsrf}`;
}

/** The tab is still signed in, and its calls through the BFF still answer. */
async function expectSessionKept(stack: BffStack, tab: Page): Promise<void> {
  const before = (await stack.provider.stats()).userinfo.ok;
  await tab.getByTestId('burst').click();
  await expect(tab.getByTestId('burst-result')).toHaveAttribute('data-ok', '1');
  await expect(tab.getByTestId('signed-in-as')).toBeVisible();
  expect((await stack.provider.stats()).userinfo.ok).toBe(before + 1);
}
