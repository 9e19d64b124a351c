import { type Page, expect, test } from '@playwright/test';

import { signIn } from './sign-in';
import { barsUnderTags } from './timeline-geometry';

// The auth lab against the reference server, as a person sees it at a phone's and a desktop's width:
// its answers come fast, so the queued and repeat bars are short, and nothing may hide them. Saves
// test-results/screenshots/real-server-layout-*.png to look at.

for (const width of [360, 1280]) {
  test(`at ${width} px, no answer's tag covers a bar, and the refresh bar's label is in view`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await burstWithExpiredToken(page);
    await page.mouse.move(0, 0);
    await page
      .locator('app-lab-timeline')
      .screenshot({ path: `test-results/screenshots/real-server-layout-timeline-${width}.png` });

    const covered = await barsUnderTags(page);
    expect(covered, "bars under an answer's tag").toEqual([]);

    const refresh = page.getByTestId('refresh-bar');
    const label = refresh.getByText('refresh', { exact: true });
    await expect(label).toBeVisible();
    const [bar, text] = await Promise.all([refresh.boundingBox(), label.boundingBox()]);
    expect(bar).not.toBeNull();
    expect(text).not.toBeNull();
    expect(text!.width).toBeGreaterThan(0);
    expect(text!.x, 'the label stands right of its bar').toBeGreaterThanOrEqual(bar!.x + bar!.width - 1);
  });
}

test('at 360 px, REFRESH_TOKEN_REUSE_INTERVAL_SECONDS on the Tabs card breaks only after an underscore', async ({
  page,
}) => {
  await page.setViewportSize({ width: 360, height: 900 });
  await signIn(page);
  const variable = page.getByTestId('reuse-interval-variable');
  await expect(variable).toHaveText('REFRESH_TOKEN_REUSE_INTERVAL_SECONDS');
  const card = page.locator('app-lab-tabs-card');
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: 'test-results/screenshots/real-server-layout-tabs-360.png' });

  // Each word of it (REFRESH_, TOKEN_, ...) on one line: a break inside one gives it two boxes.
  const lines = await variable.evaluate((code) =>
    [...code.childNodes]
      .filter((node) => node.nodeType === Node.TEXT_NODE)
      .map((node) => {
        const range = document.createRange();
        range.selectNodeContents(node);
        return [node.textContent, range.getClientRects().length] as const;
      }),
  );
  expect(lines).toEqual([
    ['REFRESH_', 1],
    ['TOKEN_', 1],
    ['REUSE_', 1],
    ['INTERVAL_', 1],
    ['SECONDS', 1],
  ]);
  // And it does wrap (wider than the card at this width), inside the card.
  const [code, box] = await Promise.all([variable.boundingBox(), card.boundingBox()]);
  expect(code!.height).toBeGreaterThan(30);
  expect(code!.x + code!.width).toBeLessThanOrEqual(box!.x + box!.width);
});

/** Signs in, has the server expire the token, fires a burst of ten and waits for them to succeed. */
async function burstWithExpiredToken(page: Page): Promise<void> {
  await signIn(page);
  await page.getByTestId('expire-token').click();
  await expect(page.getByTestId('token-remaining')).toHaveText('expired (by the lab)');
  await page.getByTestId('fire-calls').click();
  await expect(page.getByTestId('success-count')).toHaveText('10');
  // Calls answered 401 wait in the queue (a call sent once the refresh had started waits unqueued).
  await expect(page.getByTestId('bar-queued').first()).toBeVisible();
}
