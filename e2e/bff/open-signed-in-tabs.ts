import { type BrowserContext, type Page, expect } from '@playwright/test';

/**
 * Signs `login` in in a first tab of `context` (the showcase's "Sign in", then the provider's own login
 * and consent pages), then opens `count - 1` more tabs, which find the session through the cookie:
 * the tabs of one browser. Every tab ends signed in, its burst size set to `burstSize`.
 */
export async function openSignedInTabs(
  context: BrowserContext,
  login: string,
  count: number,
  burstSize = 8,
): Promise<Page[]> {
  const first = await context.newPage();
  await first.goto('/');
  await first.getByTestId('sign-in').click();
  await first.locator('input[name="login"]').fill(login);
  await first.locator('input[name="password"]').fill('any password');
  await first.getByRole('button', { name: 'Sign-in' }).click();
  await first.getByRole('button', { name: 'Continue' }).click();
  const others = await Promise.all(Array.from({ length: count - 1 }, () => context.newPage()));
  await Promise.all(others.map((tab) => tab.goto('/')));
  const tabs = [first, ...others];
  for (const tab of tabs) {
    await expect(tab.getByTestId('signed-in-as')).toHaveText(`Signed in as ${login}`);
    await tab.getByTestId('burst-size').fill(String(burstSize));
  }
  return tabs;
}
