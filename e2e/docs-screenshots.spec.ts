import { type Page, expect, test } from '@playwright/test';

import { signIn } from './sign-in';

// The README's screenshots (npm run docs:screenshots), each page at a desktop's and a phone's width.
// Against the in-memory backend, so they need nothing else running.

const WIDTHS = [1280, 360] as const;

for (const width of WIDTHS) {
  test.describe(`${width} px wide`, () => {
    test.use({ viewport: { width, height: width === 360 ? 780 : 800 } });

    test('login', async ({ page }) => {
      await page.goto('/login');
      await expect(page.getByText('Demo accounts')).toBeVisible();
      await save(page, `login-${width}`);
    });

    test('auth lab after a burst with an expired token', async ({ page }) => {
      await signIn(page);
      await page.getByTestId('expire-token').click();
      await page.getByTestId('fire-calls').click();
      await expect(page.getByTestId('success-count')).toHaveText('10');
      await save(page, `auth-lab-${width}`);
    });

    test('users, and the new-user dialog', async ({ page }) => {
      await signIn(page);
      await page.getByRole('link', { name: 'Users' }).click();
      await expect(page.getByTestId('user-row')).toHaveCount(10);
      await save(page, `users-${width}`);
      await page.getByTestId('new-user').click();
      await expect(page.getByTestId('user-form-name')).toBeFocused();
      await page.getByTestId('user-form-name').fill('Grace Hopper');
      await page.getByTestId('user-form-email').fill('not-an-email');
      await page.getByTestId('user-form-save').click();
      await expect(page.getByTestId('field-error-email')).toBeVisible();
      await save(page, `user-dialog-${width}`, false);
    });
  });
}

/** Writes docs/screenshots/<name>.png: the whole page, or only the viewport (a dialog on top). */
async function save(page: Page, name: string, fullPage = true): Promise<void> {
  // No caret or hover effects in the pictures, and the animations settled.
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage, animations: 'disabled', caret: 'hide' });
}
