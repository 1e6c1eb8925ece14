import { expect, test } from '@playwright/test';
import { loginAs, loginAsAdmin, registerUser, submitRegisterForm } from './support/fixtures.ts';
import { signInAsAdminThenPhone } from './support/viewport.ts';

test.describe('shell', () => {
  test('anonymous visitor sees Sales Agent, Login and Register, the footer and no member menus', async ({ page }) => {
    await page.goto('/');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Sales Agent', exact: true })).toHaveAttribute('href', '/conversation/new');
    await expect(page.getByRole('link', { name: 'Login' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Register' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Call Recordings' })).toHaveCount(0);
    await expect(nav.getByRole('link', { name: 'Admin' })).toHaveCount(0);
    await expect(page.getByText(`© 2024–${new Date().getFullYear()}`)).toBeVisible();
    await expect(page.getByRole('link', { name: 'Terms of Service' })).toHaveAttribute('href', /^https?:\/\//);
    await expect(page.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', /^https?:\/\//);
  });

  test('NORMAL user sees Call Recordings and the user menu but no Admin link', async ({ page, request }) => {
    const user = await registerUser(request);
    await loginAs(page, user.email, user.password);
    await expect(page.getByRole('link', { name: 'Login' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Call Recordings' }).click();
    await expect(page.getByRole('menuitem', { name: 'Upload Recordings' })).toHaveAttribute('href', '/call-recordings/upload');
    await expect(page.getByRole('menuitem', { name: 'Statistics' })).toHaveAttribute('href', '/call-recordings/statistics');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toHaveCount(0);
    await page.getByRole('button', { name: 'User menu' }).click();
    await expect(page.getByRole('menuitem', { name: 'Profile' })).toHaveAttribute('href', `/user/${user.email}`);
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expect(page.getByRole('link', { name: 'Login' })).toBeVisible();
  });

  test('on a phone the burger opens the navigation in a drawer; a link closes it', async ({ page }) => {
    await signInAsAdminThenPhone(page);
    await page.goto('/conversation/new');
    const burger = page.getByRole('button', { name: 'Open navigation' });
    await expect(burger).toHaveAttribute('aria-expanded', 'false');
    // The desktop header is not rendered at all on a phone.
    await expect(page.getByRole('button', { name: /User menu/ })).toHaveCount(0);
    await burger.click();
    const drawer = page.getByRole('dialog', { name: 'Menu' });
    await expect(drawer).toBeVisible();
    await expect(page.getByRole('button', { name: 'Close navigation' })).toHaveAttribute('aria-expanded', 'true');
    await expect(drawer.getByRole('link', { name: 'Admin' })).toBeVisible();
    await expect(drawer.getByRole('link', { name: 'Profile' })).toHaveAttribute('href', '/user/admin@example.com');
    await drawer.getByRole('link', { name: 'Conversations' }).click();
    await expect(page).toHaveURL(/\/conversation\/list$/);
    await expect(drawer).toBeHidden();
    // Opened again (its code is loaded by now), it closes with Escape and focus goes back to the burger.
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await expect(drawer).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expect(page.getByRole('button', { name: 'Open navigation' })).toBeFocused();
  });

  test('ADMIN sees the Admin link and the admin actions list', async ({ page }) => {
    await loginAsAdmin(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click();
    await expect(page).toHaveURL(/\/admin\/hello$/);
    const links = page.getByRole('list', { name: 'Admin actions' }).getByRole('link');
    await expect(links).toHaveCount(16);
    const hrefs = await links.evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(hrefs).toEqual([
      '/admin/app-config',
      '/admin/conversation-type/create',
      '/admin/conversation-type/list',
      '/conversation/list',
      '/admin/messaging-accounts/list',
      '/admin/user-messaging-accounts/list',
      '/admin/pricing/conversation',
      '/admin/webhook-simulation-tool',
      '/admin/knowledge',
      '/admin/integrations',
      '/analytics',
      '/admin/campaigns',
      '/admin/call',
      '/admin/users',
      '/admin/unanswered-conversations/list',
      '/admin/opt-outs',
    ]);
  });

  test('guards: anonymous goes to /login carrying the path; NORMAL on /admin goes to /conversation/new', async ({ page, request }) => {
    await page.goto('/admin/app-config');
    await expect(page).toHaveURL(/\/login\?redirect=%2Fadmin%2Fapp-config$/);
    await page.goto('/conversation/list?page=2');
    await expect(page).toHaveURL(/\/login\?redirect=%2Fconversation%2Flist%3Fpage%3D2$/);

    const user = await registerUser(request);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Login' }).click();
    await expect(page).toHaveURL(/\/conversation\/list\?page=2$/);
    await page.goto('/admin/hello');
    await expect(page).toHaveURL(/\/conversation\/new$/);
  });

  test('an unknown route shows the router not-found page', async ({ page }) => {
    await page.goto('/definitely/not/here');
    await expect(page.getByText('404 Not Found')).toBeVisible();
  });
});

for (const viewport of [
  { name: 'desktop', width: 1366, height: 800 },
  { name: 'phone', width: 390, height: 844 },
]) {
  test(`a toast opens below the header and never covers the navigation (${viewport.name}, issue 24)`, async ({ page, request }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const user = await registerUser(request);
    await page.goto('/register');
    await submitRegisterForm(page, user.email, 'blue-harbor-71');
    const toast = page.locator('[data-toast-type="error"]');
    await expect(toast).toContainText('An account with this email already exists.');
    const header = (await page.locator('header').first().boundingBox())!;
    const shown = (await toast.boundingBox())!;
    expect(shown.y).toBeGreaterThanOrEqual(header.y + header.height);
    // The navigation stays usable while the toast is up.
    await page.locator('header').getByRole('link').first().click({ trial: true });
  });
}
