import { type Page, expect } from '@playwright/test';

/** How a tab's burst ended. */
export interface BurstOutcome {
  readonly ok: number;
  readonly failed: number;
  readonly summary: string;
}

/**
 * Fires a burst of concurrent `GET /api/me` in every tab at the same moment (each tab's "Call /api/me"
 * button, clicked in the page, all at once) and waits for every tab to show its outcome. The tabs'
 * bursts are numbered: `before` is how many each tab fired so far.
 */
export async function fireBursts(tabs: readonly Page[]): Promise<BurstOutcome[]> {
  const before = await Promise.all(tabs.map(burstsFired));
  await Promise.all(
    tabs.map((tab) => tab.getByTestId('burst').evaluate((button: HTMLButtonElement) => button.click())),
  );
  return Promise.all(
    tabs.map(async (tab, index) => {
      const result = tab.getByTestId('burst-result');
      await expect(result).toHaveAttribute('data-burst', String(before[index]! + 1));
      return {
        ok: Number(await result.getAttribute('data-ok')),
        failed: Number(await result.getAttribute('data-failed')),
        summary: (await result.textContent())?.trim() ?? '',
      };
    }),
  );
}

async function burstsFired(tab: Page): Promise<number> {
  const result = tab.getByTestId('burst-result');
  return (await result.count()) === 0 ? 0 : Number(await result.getAttribute('data-burst'));
}
