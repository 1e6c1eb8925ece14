import { type Locator, type Page, expect } from '@playwright/test';
import { loginAsAdmin } from './fixtures.ts';

/** The sizes the screenshots and checks use. */
export const DESKTOP = { width: 1366, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Logs in at desktop width (the phone header folds the user menu the login check looks for), then turns into a phone. */
export async function loginAsAdminThenPhone(page: Page) {
  await page.setViewportSize(DESKTOP);
  await loginAsAdmin(page);
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
