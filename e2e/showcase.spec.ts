import AxeBuilder from '@axe-core/playwright';
import { type Locator, type Page, expect, test as base } from '@playwright/test';

import { signIn } from './sign-in';
import { barsUnderTags } from './timeline-geometry';

// The showcase in a real Chromium, against its production build. The in-memory backend lives in
// the page, so every test starts from the seed data; navigation after login stays inside the app
// (a reload would forget the session, like a tab that was closed).

/**
 * Every test fails on a console error, an uncaught exception, or a missing file: an answer of 400 or
 * more, or index.html served in place of a script, style, image or font (the test server answers
 * unknown paths with index.html, for deep links).
 */
const test = base.extend<{ pageProblems: string[] }>({
  pageProblems: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
      page.on('response', (response) => {
        const type = response.request().resourceType();
        const html = (response.headers()['content-type'] ?? '').startsWith('text/html');
        if (response.status() >= 400 || (type !== 'document' && html)) {
          problems.push(`missing: ${response.status()} ${response.url()} (${type})`);
        }
      });
      await use(problems);
      expect(problems).toEqual([]);
    },
    { auto: true },
  ],
});

test('redirects to the login page, shows the demo accounts, and signs in', async ({ page }) => {
  await page.goto('/users');
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fusers/);
  await expect(page.getByText('Demo accounts')).toBeVisible();
  await shot(page, 'login');

  await page.getByTestId('username').fill('ada');
  await page.getByTestId('password').fill('wrong');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('login-error')).toHaveText('Wrong username or password.');

  await page.getByTestId('password').fill('lovelace');
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/users$/);
  await expect(page.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
});

test('pages through the users', async ({ page }) => {
  await signIn(page);
  await page.getByRole('link', { name: 'Users' }).click();
  const rows = page.getByTestId('user-row');
  await expect(rows).toHaveCount(10);
  await expect(rows.first()).toContainText('1');
  await expect(page.getByText('1 – 10 of 42')).toBeVisible();
  await shot(page, 'users');

  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page.getByText('11 – 20 of 42')).toBeVisible();
  await expect(rows.first().locator('td').first()).toHaveText('11');
});

test('shows the server’s validation error on the e-mail field', async ({ page }) => {
  await signIn(page);
  await page.getByRole('link', { name: 'Users' }).click();
  await page.getByTestId('new-user').click();
  await dialogReady(page);
  await page.getByTestId('user-form-name').fill('Grace Hopper');
  await page.getByTestId('user-form-email').fill('not-an-email');
  await page.getByTestId('user-form-save').click();

  await expect(page.getByTestId('field-error-email')).toBeVisible();
  await shot(page, 'user-form-error');
});

test('creates, edits and deletes a user', async ({ page }) => {
  await signIn(page);
  await page.getByRole('link', { name: 'Users' }).click();
  await expect(page.getByText('1 – 10 of 42')).toBeVisible();

  await page.getByTestId('new-user').click();
  await dialogReady(page);
  await page.getByTestId('user-form-name').fill('Grace Hopper');
  await page.getByTestId('user-form-email').fill('grace@example.com');
  await page.getByTestId('user-form-save').click();
  await expect(page.getByText('1 – 10 of 43')).toBeVisible();
  await expect(page.locator('mat-snack-bar-container')).toContainText('Created Grace Hopper.');

  await page.getByTestId('edit-user-1').click();
  await dialogReady(page);
  await page.getByTestId('user-form-name').fill('Renamed Person');
  await page.getByTestId('user-form-save').click();
  await expect(page.getByTestId('user-row').first()).toContainText('Renamed Person');
  await expect(page.locator('mat-snack-bar-container')).toContainText('Saved the changes to Renamed Person.');

  await page.getByTestId('delete-user-2').click();
  await page.getByTestId('confirm').click();
  await expect(page.getByText('1 – 10 of 42')).toBeVisible();
  await expect(page.getByTestId('edit-user-2')).toHaveCount(0);
  await expect(page.locator('mat-snack-bar-container')).toContainText('Deleted Alan Turing.');
});

test('auth lab: ten calls with an expired token cause exactly one refresh and ten successes', async ({ page }) => {
  await signIn(page);
  await expect(page.getByTestId('token-remaining')).toHaveText(/s left/);

  await page.getByTestId('expire-token').click();
  await expect(page.getByTestId('token-remaining')).toHaveText('expired (by the lab)');
  // Not a countdown to the refresh planned for its own expiry: the next call refreshes.
  await expect(page.getByTestId('next-refresh')).toHaveText('with the next call');
  await shot(page, 'auth-lab-expired-by-lab');
  await page.getByTestId('fire-calls').click();

  await expect(page.getByTestId('success-count')).toHaveText('10');
  await expect(page.getByTestId('failure-count')).toHaveText('0');
  await expect(page.getByTestId('burst-refresh-count')).toHaveText('1');
  await expect(page.getByTestId('refresh-count')).toHaveText('1');
  await shot(page, 'auth-lab');
});

test('auth lab: a token expired by the lab shows no expiry time still ahead next to "expired"', async ({ page }) => {
  await signIn(page);
  const remaining = page.getByTestId('token-remaining');
  // The line under the countdown, however it is marked.
  const expiryLine = remaining.locator('xpath=following-sibling::p[1]');
  await expect(expiryLine).toHaveText(/^Expires \d/);

  await page.getByTestId('expire-token').click();

  await expect(remaining).toHaveText('expired (by the lab)');
  await expect(expiryLine).toHaveText(/^Expired by the lab at .+, ahead of its own expiry/);
  await expect(expiryLine).not.toHaveText(/^Expires/);
});

test('auth lab: signing in on a first visit lists no refresh, least of all a failed one', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Flab$/);
  await page.getByTestId('username').fill('ada');
  await page.getByTestId('password').fill('lovelace');
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/lab$/);

  await expect(page.getByTestId('refresh-row')).toHaveCount(0);
  await expect(page.getByText('None since this tab started.')).toBeVisible();
});

test('auth lab: a restore that finds no session (after a reload) is listed as "no session", not as failed', async ({
  page,
}) => {
  await signIn(page);
  // The in-memory backend lives in the page: after a reload it has no session to restore.
  await page.reload();
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Flab$/);
  await expect(page.getByTestId('session-message')).toHaveCount(0);
  await page.getByTestId('username').fill('ada');
  await page.getByTestId('password').fill('lovelace');
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/lab$/);

  const row = page.getByTestId('refresh-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('restoring the session');
  await expect(row.locator('[data-outcome]')).toHaveText('no session');
  // Neutral: none of the error colour of a failed refresh.
  const background = await row.locator('[data-outcome]').evaluate((chip) => getComputedStyle(chip).backgroundColor);
  const errorColour = await page.evaluate(() => {
    const probe = document.body.appendChild(document.createElement('span'));
    probe.style.background = 'var(--mat-sys-error-container)';
    const colour = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return colour;
  });
  expect(background).not.toBe(errorColour);
});

test('auth lab timeline: ten queued calls wait on one refresh bar, and repeat after it ends', async ({ page }) => {
  await signIn(page);
  await expect(page.getByTestId('timeline-empty')).toBeVisible();
  await page.getByTestId('expire-token').click();
  await page.getByTestId('fire-calls').click();
  await expect(page.getByTestId('success-count')).toHaveText('10');

  const refreshBars = page.getByTestId('refresh-bar');
  await expect(refreshBars).toHaveCount(1);
  await expect(refreshBars).toHaveText('refresh');
  const refresh = await box(refreshBars);
  const refreshEnd = refresh.x + refresh.width;
  const rows = page.getByTestId('call-row');
  await expect(rows).toHaveCount(10);
  for (const row of await rows.all()) {
    await expect(row.locator('.bar')).toHaveText(['sent', '401', 'queued', 'repeat', '200']);
    const queued = await box(row.getByTestId('bar-queued'));
    const repeat = await box(row.getByTestId('bar-repeat'));
    // Sub-pixel layout: a bar that starts where another ends may sit up to a pixel left of it.
    expect(repeat.x).toBeGreaterThanOrEqual(refreshEnd - 1);
    expect(queued.x + queued.width).toBeGreaterThanOrEqual(refreshEnd - 1);
    expect(queued.x).toBeLessThan(refreshEnd);
  }
  await expect(page.getByTestId('expiry-marker')).toHaveAccessibleName(/^Token expired at .+ before the burst$/);
  // Focus (by keyboard) tells the exact times, in a tooltip and in the bar's accessible name.
  await rows.first().getByTestId('bar-queued').focus();
  await page.keyboard.press('Tab');
  const repeat = rows.first().getByTestId('bar-repeat');
  await expect(repeat).toBeFocused();
  // A span reads "123 ms" below a second and "1.01 s" from one on (a slow machine gets there).
  const span = String.raw`(?:\d+ ms|\d+(?:\.\d+)? s)`;
  const clock = String.raw`\d\d:\d\d:\d\d\.\d{3}`;
  const times = new RegExp(String.raw`^Call #1, repeat: ${clock} \(\+${span}\) to ${clock} \(${span}\)$`);
  await expect(repeat).toHaveAccessibleName(times);
  await expect(page.locator('.mat-mdc-tooltip-surface')).toHaveText(times);
});

for (const width of [360, 1280]) {
  test(`auth lab timeline at ${width} px: no answer's tag covers a bar, the refresh bar's label is in view, and a chart wider than the screen says it scrolls`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    await signIn(page);
    await page.getByTestId('expire-token').click();
    await page.getByTestId('fire-calls').click();
    await expect(page.getByTestId('success-count')).toHaveText('10');
    const timeline = page.locator('app-lab-timeline');
    await page.mouse.move(0, 0);
    await timeline.screenshot({
      path: `test-results/screenshots/auth-lab-timeline-${width}.png`,
      animations: 'disabled',
    });

    const covered = await barsUnderTags(page);
    expect(covered, "bars under an answer's tag").toEqual([]);
    await expect(page.getByTestId('call-row').first().locator('.bar.moment')).toHaveText(['401', '200']);

    const refresh = page.getByTestId('refresh-bar');
    const label = refresh.getByText('refresh', { exact: true });
    await expect(label).toBeVisible();
    const [bar, text, chart] = await Promise.all([box(refresh), box(label), box(page.getByTestId('timeline'))]);
    expect(text.x, 'the label stands right of its bar').toBeGreaterThanOrEqual(bar.x + bar.width - 1);
    expect(text.x + text.width, 'the label ends inside the chart').toBeLessThanOrEqual(chart.x + chart.width);

    const scroller = page.getByRole('region', { name: /^Timeline;/ });
    const hint = page.getByTestId('timeline-scroll-hint');
    const rightShadow = page.getByTestId('timeline-more-right');
    const hidden = await scroller.evaluate((element) => element.scrollWidth - element.clientWidth);
    if (width === 1280) {
      expect(hidden, 'the chart fits at 1280 px').toBeLessThanOrEqual(1);
      await expect(hint).toHaveCount(0);
      await expect(rightShadow).toBeHidden();
      return;
    }
    // At 360 px it is cut off on the right: the line above says so, and a shadow marks that edge.
    expect(hidden).toBeGreaterThan(1);
    await expect(hint).toBeVisible();
    await expect(hint).toContainText('scroll it sideways');
    await expect(rightShadow).toBeVisible();
    const [shadow, frame] = await Promise.all([box(rightShadow), box(scroller)]);
    expect(Math.abs(shadow.x + shadow.width - (frame.x + frame.width))).toBeLessThanOrEqual(2);
    // Scrolled to its end: the shadow moves to the left edge, where the chart is now cut off.
    await scroller.evaluate((element) => element.scrollTo({ left: element.scrollWidth }));
    await expect(rightShadow).toBeHidden();
    await expect(page.locator('app-lab-timeline .edge.left')).toBeVisible();
    await timeline.screenshot({ path: `test-results/screenshots/auth-lab-timeline-${width}-scrolled.png` });
  });
}

test('auth lab: proactive refresh renews a 10-second token ahead of its expiry, and says when', async ({ page }) => {
  await signIn(page);
  await expect(page.getByTestId('proactive')).toHaveText('on');
  // The in-memory backend's 30-second token: due about three quarters into its life.
  await expect(page.getByTestId('next-refresh')).toHaveText(/^in 2[0-3] s \(/);

  // New tokens live 10 seconds (the slider's first step above its 5-second minimum); the next refresh
  // brings one: expire the current token and fire a burst.
  const lifetime = page.locator('mat-slider input').first();
  await lifetime.focus();
  await lifetime.press('Home');
  await lifetime.press('ArrowRight');
  await expect(page.getByText('Token lifetime: 10 s (new tokens)')).toBeVisible();
  await page.getByTestId('expire-token').click();
  await page.getByTestId('fire-calls').click();
  await expect(page.getByTestId('success-count')).toHaveText('10');
  const latest = page.getByTestId('refresh-row').first();
  await expect(latest).toHaveText(/after a 401\s*refreshed$/);
  await expect(page.getByTestId('next-refresh')).toHaveText(/^in [5-8] s \(/);

  // About three quarters into that token's life, the next one, before any call meets a 401.
  await expect(latest).toHaveText(/ahead of expiry\s*(pending|refreshed)$/, { timeout: 10_000 });
  await expect(latest).toHaveText(/ahead of expiry\s*refreshed$/);
  await expect(page.getByTestId('refresh-count')).toHaveText('2');
  // The burst's own refresh only: the one ahead of expiry came after it.
  await expect(page.getByTestId('burst-refresh-count')).toHaveText('1');
  await shot(page, 'auth-lab-proactive');
});

test('auth lab: with the refresh token revoked, the app returns to the login page and says why', async ({ page }) => {
  await signIn(page);
  await page.getByTestId('revoke-refresh').click();
  await expect(page.getByRole('status')).toContainText(
    'Refresh token revoked: the next refresh fails and ends the session.',
  );
  await shot(page, 'auth-lab-revoked');
  await page.getByTestId('expire-token').click();
  await page.getByTestId('fire-calls').click();

  await expect(page).toHaveURL(/\/login\?reason=expired/);
  await expect(page.getByTestId('session-message')).toBeVisible();
  await shot(page, 'session-ended');

  // Back in, the lab still shows that burst: every call ends on the refresh's failure.
  await page.getByTestId('username').fill('ada');
  await page.getByTestId('password').fill('lovelace');
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/lab$/);
  await expect(page.getByTestId('refresh-bar')).toHaveText(['refresh failed']);
  const rows = page.getByTestId('call-row');
  await expect(rows).toHaveCount(10);
  for (const row of await rows.all()) {
    await expect(row.locator('.bar')).toHaveText(['sent', '401', 'queued', 'refresh failed']);
  }
  await expect(page.getByTestId('failure-count')).toHaveText('10');
  await expect(page.getByTestId('timeline-note')).toContainText('The refresh failed');
});

for (const width of [1280, 360]) {
  // Axe and the walk with Tab once, at the desktop width (each costs seconds); the phone width checks the layout.
  const title =
    width === 360
      ? `at ${width} px: no page scrolls sideways, and Sign out is on screen`
      : `at ${width} px: every page has no serious accessibility violation and every control is reachable by keyboard`;
  test(title, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await page.goto('/login');
    await expect(page.getByText('Demo accounts')).toBeVisible();
    await checkPage(page, 'login', width);

    await signIn(page);
    await page.getByTestId('expire-token').click();
    await page.getByTestId('fire-calls').click();
    await expect(page.getByTestId('success-count')).toHaveText('10');
    await page.getByText('How this page is wired').click();
    await expect(page.getByTestId('wiring-source')).toContainText('tokenRefreshInterceptor,');
    await checkPage(page, 'auth lab', width);

    await page.getByRole('link', { name: 'Users' }).click();
    await expect(page.getByTestId('user-row')).toHaveCount(10);
    await checkPage(page, 'users', width);

    await page.getByTestId('new-user').click();
    await dialogReady(page);
    await checkPage(page, 'user dialog', width);
    await page.keyboard.press('Escape');

    // On a phone "Sign out" is an icon, still named, and inside the screen.
    const logout = page.getByRole('button', { name: 'Sign out' });
    await expect(logout).toBeInViewport({ ratio: 1 });
  });
}

/**
 * The page does not scroll sideways; at 1280 px also: axe (WCAG 2.1 A and AA rules) finds nothing
 * serious or critical, and Tab reaches every control on it (in a dialog: every control of the dialog).
 */
async function checkPage(page: Page, name: string, width: number): Promise<void> {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth, `${name} scrolls sideways`).toBeLessThanOrEqual(width);
  if (width === 360) return;

  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${name}: ${violation.id} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
  expect(serious).toEqual([]);

  const controls = await page.evaluate(() => {
    for (const element of document.querySelectorAll('[data-control]')) {
      element.removeAttribute('data-control');
      element.removeAttribute('data-reached');
    }
    const scope = document.querySelector('mat-dialog-container') ?? document.body;
    const found = [
      ...scope.querySelectorAll<HTMLElement>(
        'a[href], button:not([disabled]), input:not([disabled]), [tabindex]:not([tabindex="-1"])',
      ),
    ].filter(
      // Disabled controls need not be reachable (the paginator's "Previous page" on the first page).
      (element) =>
        element.getClientRects().length > 0 &&
        element.getAttribute('aria-disabled') !== 'true' &&
        !element.closest('[inert], [aria-hidden="true"]'),
    );
    found.forEach((element, index) => element.setAttribute('data-control', String(index)));
    return found.length;
  });
  // Each control that receives the focus marks itself; then Tab walks the page once and a bit.
  await page.evaluate(() =>
    document.addEventListener('focusin', (event) =>
      (event.target as Element).closest('[data-control]')?.setAttribute('data-reached', ''),
    ),
  );
  for (let press = 0; press < controls + 10; press++) await page.keyboard.press('Tab');
  const missed = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('[data-control]:not([data-reached])')].map((element) =>
      element.outerHTML.slice(0, 120),
    ),
  );
  expect(missed, `${name}: controls Tab never reached`).toEqual([]);
}

/** The element's box on the page; fails if it is not rendered. */
async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox();
  expect(found).not.toBeNull();
  return found!;
}

/** Saves a screenshot of the page as a test artifact (test-results/screenshots). */
async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });
}

/**
 * Waits until the user dialog has put the focus in its first field. Filling earlier races the
 * dialog's own autofocus, which can move the caret into the name field halfway through typing.
 */
async function dialogReady(page: Page) {
  await expect(page.getByTestId('user-form-name')).toBeFocused();
}
