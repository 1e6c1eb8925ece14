import AxeBuilder from '@axe-core/playwright';
import { expect, request as playwrightRequest, test } from '@playwright/test';
import { E2E_ADMIN, signInAsAdmin, openFromAdminHello } from './support/fixtures.ts';
import { e2eTwilioAccount } from './support/twilio-account.ts';

/**
 * Issue 23 item 4: an ADMIN creates an SMS campaign from a CSV on /admin/campaigns, starts it, watches the first
 * contact's opening SMS go out through the Twilio fake (live progress), and pauses it before the next one.
 */
test('create a campaign from a CSV, watch it progress, pause it', async ({ page, baseURL }) => {
  const api = await playwrightRequest.newContext({ baseURL });
  expect((await api.post('/api/user/login', { data: E2E_ADMIN })).status()).toBe(200);
  const accountId = await e2eTwilioAccount(api, 'Campaign line');
  const title = `E2E campaign type ${Date.now()}`;
  const type = await api.post('/api/admin/conversation-type/create-edit', {
    data: { title, rolePrompt: 'You are Sam from SunCo.', errorPrompt: 'A colleague will write back.', initialMessage: 'Hi from SunCo! Still thinking about solar?', messagingAccountId: accountId },
  });
  expect(type.status(), await type.text()).toBe(200);

  await signInAsAdmin(page);
  await openFromAdminHello(page, 'Campaigns');
  await expect(page.getByRole('heading', { name: 'Campaigns', level: 1 })).toBeVisible();

  const form = page.getByRole('form', { name: 'New campaign' });
  const name = `Solar list ${Date.now()}`;
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  await form.getByRole('combobox', { name: 'Conversation type' }).click();
  await page.getByRole('option', { name: title }).click();
  await form.getByRole('combobox', { name: 'Channel' }).click();
  await page.getByRole('option', { name: 'SMS', exact: true }).click();
  const stamp = String(Date.now()).slice(-4);
  const csv = `phone,name,roof\n+1212555${stamp},Ana,flat\n+1312555${stamp},Ben,tiled\n+1415555${stamp},Cy,metal\n`;
  await form.locator('input[type="file"]').setInputFiles({ name: 'list.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await form.getByRole('textbox', { name: 'Contacts per minute' }).fill('1');
  // No calling window: the spec runs on the real clock, whatever the hour in New York.
  await form.getByLabel('Calling window from').fill('');
  await form.getByLabel('Calling window until').fill('');
  await form.getByRole('button', { name: 'Create campaign' }).click();

  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByTestId('campaign-progress')).toHaveText('0 of 3 contacts finished');
  await page.getByRole('button', { name: 'Start' }).click();
  // One contact a minute: the first goes at once and shows up without a reload.
  await expect(page.getByTestId('campaign-progress')).toHaveText('1 of 3 contacts finished');
  const contacts = page.getByRole('table', { name: 'Contacts' });
  const first = contacts.getByRole('row').filter({ hasText: `+1212555${stamp}` });
  await expect(first.getByTestId('campaign-status')).toHaveText('sent');
  await expect(first.getByRole('link', { name: 'Open' })).toHaveAttribute('href', /^\/conversation\/[0-9a-f-]{36}$/);

  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
  await expect(page.getByTestId('campaign-status').first()).toHaveText('paused');
  await expect(contacts.getByTestId('campaign-status').filter({ hasText: 'queued' })).toHaveCount(2);
  await expect(page.getByTestId('campaign-audit')).toContainText('paused');
  await page.screenshot({ path: 'test-results/campaign-paused.png', fullPage: true });
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

  await page.getByRole('link', { name: 'All campaigns' }).click();
  await expect(page.getByRole('table', { name: 'Campaigns' }).getByRole('row').filter({ hasText: name })).toContainText('1 of 3 finished');
});
