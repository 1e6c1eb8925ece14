import { type Locator, type Page, expect } from '@playwright/test';
import { signInAsAdmin } from './fixtures.ts';

/** The sizes the screenshots and checks use. */
export const DESKTOP = { width: 1366, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Signs in as the ADMIN (through the API) and turns the page into a phone; the spec then opens its page. */
export async function signInAsAdminThenPhone(page: Page) {
  await signInAsAdmin(page);
  await page.setViewportSize(PHONE);
}

/** The page itself does not scroll sideways: a wide table scrolls inside its own frame. */
export async function expectNoHorizontalPageScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, 'page wider than the viewport').toBeLessThanOrEqual(innerWidth);
}

/** The element is visible and lies entirely within the viewport's width (no sideways scroll needed to reach it). */
export async function expectWithinViewportWidth(page: Page, locator: Locator) {
  await expect(locator).toBeVisible();
  const box = await locator.boundingBox();
  const width = page.viewportSize()!.width;
  expect(box, 'element has no box').not.toBeNull();
  expect(box!.x, 'element starts left of the viewport').toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, 'element ends right of the viewport').toBeLessThanOrEqual(width);
}

/**
 * A table's pinned last column (the row's actions) covers none of the row's form fields (issue 24): on a phone
 * a field under the sticky column could not be seen while typing. Checked with the table's frame at rest.
 */
export async function expectPinnedColumnCoversNoField(table: Locator) {
  const covered = await table.evaluate((element) => {
    const found: string[] = [];
    for (const row of Array.from(element.querySelectorAll('tbody tr'))) {
      const cells = Array.from(row.children) as HTMLElement[];
      const pinned = cells.at(-1);
      if (!pinned || cells.length < 2) continue;
      const p = pinned.getBoundingClientRect();
      for (const cell of cells.slice(0, -1)) {
        for (const field of Array.from(cell.querySelectorAll<HTMLElement>('input:not([type=hidden]), textarea, select, [role=combobox]'))) {
          const f = field.getBoundingClientRect();
          if (f.width === 0 || f.height === 0) continue;
          const overlaps = f.left < p.right && p.left < f.right && f.top < p.bottom && p.top < f.bottom;
          if (overlaps) found.push(`${row.getAttribute('aria-label') ?? 'a row'}: ${field.getAttribute('aria-label') ?? field.id} (${Math.round(f.left)}–${Math.round(f.right)} px) under the pinned column (${Math.round(p.left)}–${Math.round(p.right)} px)`);
        }
      }
    }
    return found;
  });
  expect(covered, 'fields covered by the pinned column').toEqual([]);
}
