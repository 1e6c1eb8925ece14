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
