import { type Page, expect } from '@playwright/test';

/** Signs in as the demo admin from the login page and waits for the auth lab. */
export async function signIn(page: Page): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('username').fill('ada');
  await page.getByTestId('password').fill('lovelace');
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/lab$/);
}
