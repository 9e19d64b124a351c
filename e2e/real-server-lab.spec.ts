import { type Page, expect, test } from '@playwright/test';

import { signIn } from './sign-in';

// The auth lab against the reference server (see playwright.real.config.ts, which turns on the
// server's development-only lab route): what a person sees in the first minutes, without false alarms.

test('a first visit goes to the login page without a failed request or a console error', async ({ page }) => {
  const problems = recordProblems(page);

  await page.goto('/');

  await expect(page).toHaveURL(/\/login\?returnUrl=%2Flab$/);
  await expect(page.getByText('The reference server created them on its first start.')).toBeVisible();
  expect(problems).toEqual([]);
});

test('"Expire access token now" makes the server refuse the token: a burst makes one refresh, and all succeed', async ({
  page,
}) => {
  const refreshes = countRefreshes(page);
  await signIn(page);
  await expect(page.getByTestId('token-remaining')).toHaveText(/s left/);

  await page.getByTestId('expire-token').click();
  await expect(page.getByTestId('token-remaining')).toHaveText('expired (by the lab)');
  await expect(page.getByTestId('token-expiry')).toHaveText(/^Expired by the lab at /);
  const before = refreshes.count;
  await page.getByTestId('fire-calls').click();

  await expect(page.getByTestId('success-count')).toHaveText('10');
  await expect(page.getByTestId('failure-count')).toHaveText('0');
  await expect(page.getByTestId('burst-refresh-count')).toHaveText('1');
  expect(refreshes.count - before).toBe(1);
  await expect(page.getByTestId('bar-401')).toHaveCount(10);
});

for (const width of [1280, 360]) {
  test(`at ${width} px, every label on the timeline shows whole or not at all`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await signIn(page);
    await page.getByTestId('expire-token').click();
    await expect(page.getByTestId('token-remaining')).toHaveText('expired (by the lab)');
    await page.getByTestId('fire-calls').click();
    await expect(page.getByTestId('success-count')).toHaveText('10');
    await expect(page.getByTestId('bar-queued')).toHaveCount(10);
    await page
      .getByTestId('timeline')
      .screenshot({ path: `test-results/screenshots/real-server-timeline-${width}.png` });

    // Each bar's text against the bar: inside it and clear of the answers' tags on its row (they sit
    // below the bars), or wholly out of sight (the bar's overflow).
    const clipped = await page.getByTestId('timeline').evaluate((chart) =>
      [...chart.querySelectorAll<HTMLElement>('.bar:not(.moment)')].flatMap((bar) => {
        const range = document.createRange();
        range.selectNodeContents(bar);
        const text = range.getBoundingClientRect();
        const edge = bar.getBoundingClientRect();
        const name = `${bar.textContent?.trim()} (${Math.round(edge.width)} px wide)`;
        if (text.width === 0) return [];
        const outOfSight =
          text.top >= edge.bottom - 0.5 ||
          text.bottom <= edge.top + 0.5 ||
          text.right <= edge.left + 0.5 ||
          text.left >= edge.right - 0.5;
        if (outOfSight) return [];
        if (text.left < edge.left - 0.5 || text.right > edge.right + 0.5) return [`${name}: cut by its bar`];
        const tags = [...(bar.parentElement?.querySelectorAll('.bar.moment') ?? [])].map((tag) =>
          tag.getBoundingClientRect(),
        );
        const covered = tags.some(
          (tag) =>
            tag.left < text.right - 0.5 &&
            tag.right > text.left + 0.5 &&
            tag.top < text.bottom - 0.5 &&
            tag.bottom > text.top + 0.5,
        );
        return covered ? [`${name}: under a tag`] : [];
      }),
    );
    expect(clipped).toEqual([]);
  });
}

/** Console errors, uncaught exceptions and answers of 400 or more, as they happen. */
function recordProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400)
      problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return problems;
}

/** Counts the browser's own `POST /auth/refresh` requests. */
function countRefreshes(page: Page): { readonly count: number } {
  const counter = { count: 0 };
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/auth/refresh') counter.count++;
  });
  return counter;
}
