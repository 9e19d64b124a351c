import { type BrowserContext, type Page, type Request, expect, test } from '@playwright/test';

// withIdleTimeout() in Chromium, in several tabs of the showcase's `real` build against the reference
// server (see playwright.real.config.ts). Every tab is opened with `?idle=6`: the session ends after
// 6 s without activity in any tab, with a warning from 3 s before.

const IDLE_QUERY = '?idle=6';

/** Counts the POST /auth/logout calls of every tab of `context`, from now on. */
function countLogouts(context: BrowserContext): () => number {
  let count = 0;
  context.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/auth/logout') count++;
  });
  return () => count;
}

/** Signs in in a first tab, then opens `count - 1` more tabs of the lab, all with the short idle time. */
async function openTabs(context: BrowserContext, count: number): Promise<Page[]> {
  const first = await context.newPage();
  await first.goto(`/login${IDLE_QUERY}`);
  await first.getByTestId('username').fill('ada');
  await first.getByTestId('password').fill('lovelace');
  await first.getByTestId('login-submit').click();
  await expect(first).toHaveURL(/\/lab$/);
  const tabs = [first];
  for (let i = 1; i < count; i++) {
    const tab = await context.newPage();
    await tab.goto(`/lab${IDLE_QUERY}`);
    await expect(tab.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
    tabs.push(tab);
  }
  return tabs;
}

test('activity in one tab keeps every tab signed in', async ({ context }) => {
  const logouts = countLogouts(context);
  const [working, other] = await openTabs(context, 2);
  if (!working || !other) throw new Error('no tabs');

  // Somebody works in the first tab for two idle times; nobody touches the second.
  for (let second = 0; second < 12; second++) {
    await working.mouse.move(100 + (second % 2) * 50, 200);
    await working.waitForTimeout(1000);
  }

  for (const tab of [working, other]) {
    await expect(tab).toHaveURL(/\/lab/);
    await expect(tab.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
    await expect(tab.getByTestId('idle-stay')).toHaveCount(0);
  }
  expect(logouts()).toBe(0);
});

test('with nobody active, every tab warns, then signs out at the deadline; the server is told once', async ({
  context,
}) => {
  const logouts = countLogouts(context);
  const tabs = await openTabs(context, 2);

  // The warning, with the seconds left, in every tab.
  for (const tab of tabs) await expect(tab.getByTestId('idle-seconds')).toBeVisible({ timeout: 10_000 });

  const signedOutAt = await Promise.all(
    tabs.map(async (tab) => {
      await expect(tab).toHaveURL(/\/login\?reason=idle/, { timeout: 10_000 });
      return Date.now();
    }),
  );
  expect(Math.max(...signedOutAt) - Math.min(...signedOutAt)).toBeLessThan(1500);
  for (const tab of tabs) {
    await expect(tab.getByTestId('session-message')).toHaveText(
      'You were signed out because nobody used the app for a while.',
    );
  }
  await expect.poll(logouts).toBe(1);
  // Still once a moment later: no second tab told the server.
  await tabs[0]?.waitForTimeout(1000);
  expect(logouts()).toBe(1);
});

test('"Stay signed in" in the warning keeps the session in every tab', async ({ context }) => {
  const logouts = countLogouts(context);
  const [first, second] = await openTabs(context, 2);
  if (!first || !second) throw new Error('no tabs');
  await expect(second.getByTestId('idle-stay')).toBeVisible({ timeout: 10_000 });
  await second.getByTestId('idle-stay').click();
  for (const tab of [first, second]) await expect(tab.getByTestId('idle-stay')).toHaveCount(0);
  // Past the deadline the warning announced, within the new one: nobody signed out.
  await first.waitForTimeout(4500);
  for (const tab of [first, second]) await expect(tab).toHaveURL(/\/lab/);
  expect(logouts()).toBe(0);
});

test('a tab frozen through the deadline signs out as it wakes, and sends nothing with the token', async ({
  context,
}) => {
  const logouts = countLogouts(context);
  const [first, sleeper] = await openTabs(context, 2);
  if (!first || !sleeper) throw new Error('no tabs');
  // The first tab goes away before the deadline: nobody else will end the session or tell the server.
  await first.close();
  const cdp = await context.newCDPSession(sleeper);
  await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
  await sleeper.waitForTimeout(8000);

  const afterWake: Request[] = [];
  sleeper.on('request', (request) => afterWake.push(request));
  await cdp.send('Page.setWebLifecycleState', { state: 'active' });

  await expect(sleeper).toHaveURL(/\/login\?reason=idle/, { timeout: 5000 });
  await expect.poll(logouts).toBe(1);
  for (const request of afterWake) {
    const path = new URL(request.url()).pathname;
    if (path === '/auth/logout') continue;
    expect(await request.headerValue('authorization'), `${request.method()} ${path}`).toBeNull();
  }
});

test('a session reopened after the idle time, every tab closed meanwhile, ends at once instead of coming back', async ({
  context,
}) => {
  const logouts = countLogouts(context);
  const [tab] = await openTabs(context, 1);
  if (!tab) throw new Error('no tab');
  // Every tab closed before the deadline (the browser closed, or the tab discarded): nothing ran since.
  await tab.close();
  const later = await context.newPage();
  await later.waitForTimeout(7000);

  // The refresh cookie still works, but the last activity the tabs stored is older than the idle time.
  await later.goto(`/lab${IDLE_QUERY}`);
  await expect(later).toHaveURL(/\/login\?reason=idle/);
  await expect.poll(logouts).toBe(1);
});
