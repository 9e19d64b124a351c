import type { Page } from '@playwright/test';

// Geometry of the auth lab's timeline, shared by the in-memory and the reference-server layout tests.

/**
 * The bars that an answer's tag (401, 200) of their row covers: boxes that share more than a pixel
 * each way, named `#<call>: <kind>`.
 */
export function barsUnderTags(page: Page): Promise<string[]> {
  return page.getByTestId('call-row').evaluateAll((rows) =>
    rows.flatMap((row) => {
      const tags = [...row.querySelectorAll('.bar.moment')].map((tag) => tag.getBoundingClientRect());
      return [...row.querySelectorAll<HTMLElement>('.bar:not(.moment)')].flatMap((bar) => {
        const box = bar.getBoundingClientRect();
        const shared = (tag: DOMRect) =>
          Math.min(tag.right, box.right) - Math.max(tag.left, box.left) > 1 &&
          Math.min(tag.bottom, box.bottom) - Math.max(tag.top, box.top) > 1;
        return tags.some(shared) ? [`#${row.getAttribute('data-call')}: ${bar.dataset['kind']}`] : [];
      });
    }),
  );
}
