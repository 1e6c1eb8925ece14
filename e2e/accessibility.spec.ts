import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { E2E_ADMIN, signInAsAdmin } from './support/fixtures.ts';

/**
 * Issue 12 item 5: every route of spec §2.2 (plus the 404 page and the widget's embed page) has no serious or
 * critical axe-core violation and exactly one h1, in the light and in the dark scheme.
 */

interface Fixtures {
  typeId: number;
  accountId: number;
  uuid: string;
}

async function seed(request: APIRequestContext): Promise<Fixtures> {
  expect((await request.post('/api/user/login', { data: E2E_ADMIN })).status()).toBe(200);
  const stamp = Date.now();
  const type = await request.post('/api/admin/conversation-type/create-edit', {
    data: { title: `A11y type ${stamp}`, rolePrompt: 'You sell dental cleanings.', errorPrompt: 'Apologise and offer a call.' },
  });
  expect(type.status(), await type.text()).toBeLessThan(300);
  const typeId = (await type.json()).conversationType.id;
  const account = await request.post('/api/admin/messaging-accounts/create-edit', {
    data: { type: 'INSTAGRAM', accessToken: `tok-${stamp}`, pageId: `ig-${stamp}`, pageName: `A11y page ${stamp}` },
  });
  expect(account.status(), await account.text()).toBe(200);
  const accountId = (await account.json()).messagingAccount.id;
  const chat = await request.post('/api/conversation/new', { data: { conversationTypeId: typeId } });
  expect(chat.status(), await chat.text()).toBe(201);
  const uuid = (await chat.json()).uuid;
  await request.post(`/api/conversation/${uuid}/written-message`, { data: { message: 'Hello, is the cleaning covered?' } });
  return { typeId, accountId, uuid };
}

const openRoutes = (f: Fixtures) => [
  '/',
  '/conversation/new',
  `/conversation/${f.uuid}`,
  '/login',
  '/register',
  '/set-password?email=someone%40example.com',
  '/forgot-password',
  '/user/connect-meta-page',
  '/user/meta-login-register-redirect',
  '/user/meta-invite',
  '/user/onboarding',
  '/definitely/not/here',
  `/embed/${f.typeId}`,
];

const signedInRoutes = (f: Fixtures) => [
  '/',
  `/conversation/${f.uuid}`,
  '/conversation/list',
  '/call-recordings/upload',
  '/call-recordings/statistics',
  '/call-recordings/999999/transcript',
  `/user/${E2E_ADMIN.email}`,
  '/admin/hello',
  '/admin/app-config',
  '/admin/conversation-type/create',
  '/admin/conversation-type/list',
  `/admin/conversation-type/${f.typeId}/edit`,
  `/admin/conversation-type/${f.typeId}/config`,
  `/admin/conversation-type/${f.typeId}/contacts`,
  '/admin/pricing/conversation',
  '/admin/call',
  '/admin/messaging-accounts/list',
  '/admin/messaging-accounts/create',
  `/admin/messaging-accounts/${f.accountId}/edit`,
  `/admin/messaging-accounts/${f.accountId}/config`,
  '/admin/user-messaging-accounts/list',
  '/admin/user-messaging-accounts/create',
  '/admin/unanswered-conversations/list',
  '/admin/webhook-simulation-tool',
  '/admin/integrations',
  '/admin/opt-outs',
  '/definitely/not/here',
];

/** Opens the route and waits until its data has loaded (its h1 is shown and no loader is left). */
async function open(page: Page, route: string) {
  await page.goto(route);
  await expect(page.locator('h1').first()).toBeVisible();
  await expect(page.locator('.mantine-Loader-root')).toHaveCount(0);
  // Mantine's transitions (menus, notifications) settle within 200 ms; axe must see the final colours.
  await page.waitForLoadState('networkidle');
}

async function scan(page: Page, route: string): Promise<string[]> {
  await open(page, route);
  const problems: string[] = [];
  const h1 = await page.locator('h1').count();
  if (h1 !== 1) problems.push(`${route}: ${h1} h1 elements`);
  // axe's default rule set (every WCAG 2.0–2.2 A/AA rule and its best practices), as the audit ran it.
  // The admin's own HTML (register/onboarding texts, which other specs fill with test markup such as an <img>
  // without alt on the shared server) is their content, not the product's UI.
  const result = await new AxeBuilder({ page }).exclude('[data-admin-html]').analyze();
  for (const v of result.violations) {
    if (v.impact !== 'serious' && v.impact !== 'critical') continue;
    const targets = v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`);
    problems.push(`${route}: ${v.id} (${v.impact}) ×${v.nodes.length}: ${targets.join(' | ')}`);
  }
  return problems;
}

for (const colorScheme of ['light', 'dark'] as const) {
  test.describe(`accessibility (${colorScheme})`, () => {
    // The app follows the system scheme until the toggle is used (providers.tsx).
    test.use({ colorScheme });

    test('open pages, as an anonymous visitor', async ({ page, playwright, baseURL }) => {
      const api = await playwright.request.newContext({ baseURL });
      const fixtures = await seed(api);
      const problems: string[] = [];
      for (const route of openRoutes(fixtures)) problems.push(...(await scan(page, route)));
      expect(problems).toEqual([]);
      await api.dispose();
    });

    test('every signed-in and admin page, as an ADMIN', async ({ page, playwright, baseURL }) => {
      test.setTimeout(180_000);
      const api = await playwright.request.newContext({ baseURL });
      const fixtures = await seed(api);
      await signInAsAdmin(page);
      const problems: string[] = [];
      for (const route of signedInRoutes(fixtures)) problems.push(...(await scan(page, route)));
      expect(problems).toEqual([]);
      await api.dispose();
    });
  });
}

test('dark mode follows the system and the header toggle overrides it, remembered across reloads', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await page.getByRole('button', { name: 'Switch to light mode' }).first().click();
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
  await page.reload();
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
  await page.getByRole('button', { name: 'Switch to dark mode' }).first().click();
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
});
