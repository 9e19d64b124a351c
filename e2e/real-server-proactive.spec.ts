import { type BrowserContext, type Page, type Response, expect, test } from '@playwright/test';

// Proactive refresh (withProactiveRefresh(), on by default in the showcase) in the `real` build
// against the second reference server of playwright.real.config.ts, whose access tokens live 10
// seconds: long enough to be refreshed ahead of expiry. What the page shows is checked against what
// the browser actually sent and received.

/** How often the steady traffic fires a call of the lab, in ms. */
const STEADY_MS = 300;

test('steady calls across two token lifetimes meet no 401: one refresh per token, ahead of its expiry', async ({
  page,
}) => {
  const wire = recordWire(page);
  const session = await signIn(page);
  await expect(page.getByTestId('proactive')).toHaveText('on');
  // Due about three quarters into the token's life (6.5 s after it arrived, for a 10 s token), counting down.
  const due = page.getByTestId('next-refresh');
  await expect(due).toHaveText(/^in \d+ s \(.+\)$/);
  const dueSeconds = Number(/\d+/.exec((await due.textContent()) ?? '')?.[0]);
  const expected = (session.signedInAt + session.aheadMs - Date.now()) / 1000;
  expect(dueSeconds).toBeGreaterThanOrEqual(Math.floor(expected) - 1);
  expect(dueSeconds).toBeLessThanOrEqual(Math.ceil(expected) + 1);
  await oneCallPerBurst(page);

  const steady = twoLifetimes(session, session.signedInAt);
  await steadyCalls([page], steady.until);

  expect(wire.unauthorized(), 'API answers 401').toEqual([]);
  // Steady: more than a call a second.
  expect(wire.apiCalls().length).toBeGreaterThan((2 * session.lifetimeMs) / 1000);
  // One refresh per token, each ahead of the expiry of the token it replaces.
  const refreshes = wire.refreshes();
  expect(refreshes).toHaveLength(steady.refreshes);
  expectEvery(session, refreshes);
  const rows = page.getByTestId('refresh-row');
  await expect(rows).toHaveCount(steady.refreshes);
  for (const row of await rows.all()) await expect(row).toHaveText(/ahead of expiry\s*refreshed$/);
  await page.screenshot({ path: 'test-results/screenshots/real-server-proactive-lab.png', fullPage: true });
});

test('two tabs with cross-tab sync make one refresh per token between them, and meet no 401', async ({ context }) => {
  const wire = recordWire(context);
  const first = await context.newPage();
  const session = await signIn(first);
  // The second tab starts without a token and takes the first tab's: no refresh of its own.
  const second = await context.newPage();
  await second.goto('/lab');
  await expect(second.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
  expect(wire.refreshes(), 'refreshes to open the second tab').toEqual([]);
  for (const tab of [first, second]) {
    await oneCallPerBurst(tab);
    await expect(tab.getByTestId('cross-tab-sync')).toHaveText('on');
    await expect(tab.getByTestId('next-refresh')).toHaveText(/^in \d s/);
  }

  const steady = twoLifetimes(session, session.signedInAt);
  await steadyCalls([first, second], steady.until);

  expect(wire.unauthorized(), 'API answers 401').toEqual([]);
  const refreshes = wire.refreshes();
  expect(refreshes, 'refreshes of the two tabs').toHaveLength(steady.refreshes);
  expectEvery(session, refreshes);
  // At each expiry one tab refreshed ahead of it, and the other took its token.
  const lines = (
    await Promise.all([first, second].map((tab) => tab.getByTestId('refresh-row').allTextContents()))
  ).flat();
  // The second tab's restore ended with the first tab's token, without a call.
  expect(lines.filter((line) => /restoring the session/.test(line))).toEqual([
    expect.stringMatching(/restoring the session\s*token from another tab$/),
  ]);
  expect(lines.filter((line) => /ahead of expiry\s*refreshed$/.test(line))).toHaveLength(steady.refreshes);
  expect(lines.filter((line) => /token from another tab$/.test(line)).length).toBeGreaterThanOrEqual(steady.refreshes);
  const last = await Promise.all([first, second].map((tab) => tab.getByTestId('last-refresh').textContent()));
  expect(last).toContain('refreshed (this tab made the call)');
  expect(
    last.filter((line) =>
      ["waited for another tab's refresh and took its token", 'received a token from another tab'].includes(line ?? ''),
    ),
  ).toHaveLength(1);
});

test('the timeline of a tab shows a token it took from another tab, on the refresh lane after its burst', async ({
  context,
}) => {
  const first = await context.newPage();
  // Proactive refresh off here, so the only new token this tab can get is the other tab's.
  await signIn(first, '?proactive=off');
  await first.getByTestId('fire-calls').click();
  await expect(first.getByTestId('success-count')).toHaveText('10');
  await expect(first.getByTestId('refresh-bar')).toHaveCount(0);

  // A second tab restores the session with the cookie: its refresh's token reaches the first tab.
  const second = await context.newPage();
  const restored = second.waitForResponse(isRefresh);
  await second.goto('/lab');
  await restored;

  const bar = first.getByTestId('refresh-bar');
  await expect(bar).toHaveCount(1);
  await expect(bar).toHaveAttribute('data-kind', 'token-from-tab');
  await expect(bar).toHaveText('token from another tab');
  await expect(bar).toHaveAttribute('aria-label', /token from another tab/);
  // It came after the burst: right of the end of every call's last bar.
  const barBox = await bar.boundingBox();
  for (const row of await first.getByTestId('call-row').all()) {
    const last = await row.locator('.bar').last().boundingBox();
    expect(barBox!.x).toBeGreaterThanOrEqual(last!.x + last!.width - 1);
  }
  // And the first tab made no refresh call of its own.
  await expect(first.getByTestId('last-refresh')).toHaveText('received a token from another tab');
});

test('a tab hidden across an expiry refreshes nothing on a timer, and refreshes at once when shown', async ({
  page,
}) => {
  const wire = recordWire(page);
  const session = await signIn(page);
  await oneCallPerBurst(page);

  await setHidden(page, true);
  // Past the due time and the token's expiry, with nothing on the wire.
  await page.waitForTimeout(Math.max(0, session.signedInAt + session.lifetimeMs + 1_000 - Date.now()));
  expect(wire.refreshes(), 'refreshes while hidden').toEqual([]);
  await expect(page.getByTestId('token-remaining')).toHaveText('expired');
  await expect(page.getByTestId('next-refresh')).toHaveText(/^now \(/);

  const shownAt = Date.now();
  await setHidden(page, false);
  // The first call right after: held for the refresh that showing the page started, never a 401.
  await page.getByTestId('fire-calls').click();

  await expect(page.getByTestId('success-count')).toHaveText('1');
  const refreshes = wire.refreshes();
  expect(refreshes).toHaveLength(1);
  expect(refreshes[0]?.status).toBe(200);
  expect((refreshes[0]?.at ?? Infinity) - shownAt, 'ms from showing the page to the refresh').toBeLessThan(1_000);
  expect(wire.unauthorized(), 'API answers 401').toEqual([]);
  expect(wire.apiCalls().map(({ status }) => status)).toEqual([200]);
  // Started by withProactiveRefresh on showing, without a call: "expired while away" once the library
  // tells a refresh of an expired token from one ahead of expiry, "ahead of expiry" while it does not.
  await expect(page.getByTestId('refresh-row').first()).toHaveText(/(expired while away|ahead of expiry)\s*refreshed$/);
  await expect(page.getByTestId('next-refresh')).toHaveText(/^in \d s/);
});

test('with ?proactive=off the same steady calls do meet 401s, and the lab says it is off', async ({ page }) => {
  const wire = recordWire(page);
  const session = await signIn(page, '?proactive=off');
  await oneCallPerBurst(page);
  await expect(page.getByTestId('proactive')).toHaveText('off');
  await expect(page.getByTestId('proactive-switch')).toHaveText('turn on');
  await expect(page.getByTestId('next-refresh')).toHaveCount(0);

  await steadyCalls([page], session.signedInAt + session.lifetimeMs + 1_500);

  expect(wire.unauthorized().length, 'API answers 401').toBeGreaterThan(0);
  // One refresh, at the first 401 after the token expired (the server's clock counts whole seconds),
  // nothing ahead of it; each 401 repeated with the refreshed token.
  expect(wire.refreshes()).toHaveLength(1);
  expect(wire.refreshes()[0]?.at).toBeGreaterThan(session.signedInAt + session.lifetimeMs - 1_500);
  expect(wire.apiCalls().filter(({ status }) => status === 200).length).toBe(
    wire.apiCalls().length - wire.unauthorized().length,
  );
  await expect(page.getByTestId('refresh-row').first()).toHaveText(/after a 401\s*refreshed$/);
});

/** A token's times, in ms on this machine's clock (the server runs on the same machine). */
interface Session {
  /** When the sign-in's token arrived. */
  readonly signedInAt: number;
  /** How long its tokens live (`exp - iat`). */
  readonly lifetimeMs: number;
  /**
   * When after its arrival withProactiveRefresh() refreshes it, by the library's rule: a minute
   * (`leadTime`) before it expires, but at most a quarter of its lifetime early, its expiry counted
   * from the end of its `iat` second (the server's clock counts whole seconds: up to a second early,
   * never late). 6.5 s for a 10 s token.
   */
  readonly aheadMs: number;
}

/**
 * Steady traffic from `from` (when the tabs' token arrived) across two lifetimes: `refreshes` are
 * due in it, one per token, the last a second before `until`, the next well after it.
 */
function twoLifetimes(session: Session, from: number): { until: number; refreshes: number } {
  const refreshes = Math.ceil((2 * session.lifetimeMs - 1_000) / session.aheadMs);
  return { until: from + refreshes * session.aheadMs + 1_000, refreshes };
}

/** Signs in as the demo admin from the login page (`query` added to its URL) and waits for the lab. */
async function signIn(page: Page, query = ''): Promise<Session> {
  await page.goto(`/login${query}`);
  await page.getByTestId('username').fill('ada');
  await page.getByTestId('password').fill('lovelace');
  const login = page.waitForResponse((response) => new URL(response.url()).pathname === '/auth/login');
  await page.getByTestId('login-submit').click();
  const signedInAt = await arrival(login);
  await expect(page).toHaveURL(/\/lab$/);
  return sessionOf(await login, signedInAt);
}

/** The session whose token `response` brought at `at`. */
async function sessionOf(response: Response, at: number): Promise<Session> {
  const { accessToken } = (await response.json()) as { accessToken: string };
  const payload = accessToken.split('.')[1] ?? '';
  const { iat, exp } = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { iat: number; exp: number };
  const lifetimeMs = (exp - iat) * 1000;
  return { signedInAt: at, lifetimeMs, aheadMs: lifetimeMs - 1_000 - Math.min(60_000, lifetimeMs / 4) };
}

/** When the awaited response arrives (this machine's clock). */
async function arrival(response: Promise<Response>): Promise<number> {
  await response;
  return Date.now();
}

/**
 * Each refresh came when due for the token before it (`aheadMs` after it arrived, not sooner), and a
 * second before that token expired at the latest. Before the first, the tabs' tokens arrived between
 * the sign-in and `lastTokenAt`.
 */
function expectEvery(session: Session, refreshes: readonly Answer[], lastTokenAt = session.signedInAt): void {
  let [earliest, latest] = [session.signedInAt, lastTokenAt];
  for (const [index, refresh] of refreshes.entries()) {
    expect(refresh.status).toBe(200);
    expect(refresh.at - earliest, `ms from token ${index} to refresh ${index + 1}`).toBeGreaterThan(
      session.aheadMs - 500,
    );
    expect(refresh.at - latest, `ms from token ${index} to refresh ${index + 1}`).toBeLessThan(
      session.lifetimeMs - 1_000,
    );
    earliest = latest = refresh.at;
  }
}

/** Fires one call per burst of the lab instead of ten. */
async function oneCallPerBurst(page: Page): Promise<void> {
  await page.getByTestId('call-count').click();
  await page.getByRole('option', { name: '1', exact: true }).click();
  await expect(page.getByTestId('fire-calls')).toHaveText('Fire 1 calls');
}

/** Fires one call in each tab every STEADY_MS until `until` (ms since the epoch); waits for the last. */
async function steadyCalls(tabs: readonly Page[], until: number): Promise<void> {
  while (Date.now() < until) {
    for (const tab of tabs) await tab.getByTestId('fire-calls').click();
    await tabs[0]?.waitForTimeout(STEADY_MS);
  }
  for (const tab of tabs) await expect(tab.getByTestId('success-count')).toHaveText('1');
}

/**
 * Hides or shows the page as the browser does when its tab goes to the background or comes back:
 * `document.visibilityState` and `document.hidden` change, then `visibilitychange` fires. Emulated
 * in the page, since headless Chromium keeps every page visible (neither a minimized window nor
 * another active tab hides one) and the DevTools protocol has no switch for it.
 */
async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((hide) => {
    Object.defineProperty(document, 'visibilityState', {
      configurable: true,
      get: () => (hide ? 'hidden' : 'visible'),
    });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hide });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

/** One answer the browser received from /api or /auth. */
interface Answer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** When it arrived (this machine's clock). */
  readonly at: number;
}

/** Records the answers from /api and /auth that `target` (a tab, or every tab of a context) receives. */
function recordWire(target: Page | BrowserContext) {
  const answers: Answer[] = [];
  const record = (response: Response) => {
    const path = new URL(response.url()).pathname;
    if (!/^\/(api|auth)\//.test(path)) return;
    answers.push({ method: response.request().method(), path, status: response.status(), at: Date.now() });
  };
  // Page and BrowserContext each declare on('response'), but not on their union.
  (target as Page).on('response', record);
  return {
    apiCalls: () => answers.filter(({ path }) => path.startsWith('/api/')),
    unauthorized: () => answers.filter(({ path, status }) => path.startsWith('/api/') && status === 401),
    refreshes: () => answers.filter(({ method, path }) => method === 'POST' && path === '/auth/refresh'),
  };
}

function isRefresh(response: Response): boolean {
  return response.request().method() === 'POST' && new URL(response.url()).pathname === '/auth/refresh';
}
