import { readFile } from 'node:fs/promises';
import { expect, request as playwrightRequest, test } from '@playwright/test';
import { E2E_ADMIN, signInAsAdmin } from './support/fixtures.ts';
import { e2eTwilioAccount } from './support/twilio-account.ts';

/**
 * Issue 23: a call campaign whose audience is a GoHighLevel pipeline stage, with retries per outcome and a
 * voicemail message, created on /admin/campaigns; then a campaign's figures on the analytics screen and in
 * its CSV. On the second E2E server (E2E_FAKE_GHL, E2E_FAKE_TWILIO): "Solar leads — Contacted" holds one
 * contact, Casey Contacted, +15559990001.
 */
const FAKE_PORT = Number(process.env.E2E_PORT ?? 3100) + 50;
test.use({ baseURL: `http://localhost:${FAKE_PORT}` });

test('a campaign from a GoHighLevel stage with retries and a voicemail message; campaign figures on the analytics screen', async ({ page }) => {
  const api = await playwrightRequest.newContext({ baseURL: `http://localhost:${FAKE_PORT}` });
  expect((await api.post('/api/user/login', { data: E2E_ADMIN })).status()).toBe(200);
  const accountId = await e2eTwilioAccount(api, 'Campaign GHL line');
  const title = `E2E GHL campaign type ${Date.now()}`;
  const type = await api.post('/api/admin/conversation-type/create-edit', {
    data: { title, rolePrompt: 'You are Sam from SunCo.', errorPrompt: 'A colleague will call back.', initialMessage: 'Hi from SunCo!', config: '{"crm": "GHL"}', messagingAccountId: accountId },
  });
  expect(type.status(), await type.text()).toBe(200);
  const typeId = (await type.json()).conversationType.id as number;

  await signInAsAdmin(page);
  await page.goto('/admin/campaigns');
  const form = page.getByRole('form', { name: 'New campaign' });
  const name = `Stage list ${Date.now()}`;
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  await form.getByRole('combobox', { name: 'Conversation type' }).click();
  await page.getByRole('option', { name: title }).click();
  await form.getByText('A GoHighLevel pipeline stage').click();
  await form.getByRole('combobox', { name: 'Pipeline stage' }).click();
  await page.getByRole('option', { name: 'Solar leads — Contacted' }).click();
  await form.getByRole('textbox', { name: 'Retries after voicemail' }).fill('2');
  await form.getByRole('textbox', { name: 'Voicemail message' }).fill('Hi Casey, Sam from SunCo here. Call us back any time!');
  await form.getByRole('button', { name: 'Create campaign' }).click();

  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByText(/tried again after no answer \(1×\), busy \(1×\), voicemail \(2×\), 60 min later/)).toBeVisible();
  await expect(page.getByText(/Contacts from the GoHighLevel stage st-contacted/)).toBeVisible();
  await expect(page.getByText('Voicemail message: “Hi Casey, Sam from SunCo here. Call us back any time!”')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Contacts' }).getByRole('row').filter({ hasText: '+15559990001' })).toContainText('Casey Contacted');
  await page.screenshot({ path: 'test-results/campaign-ghl-stage.png', fullPage: true });

  // An SMS campaign of the same type reaches its one contact; its figures show on the analytics screen.
  const phone = `+1212556${String(Date.now()).slice(-4)}`;
  const created = await api.post('/api/admin/campaigns', { data: { name: `Figures ${Date.now()}`, conversationTypeId: typeId, channel: 'sms', contacts: [{ phone }] } });
  expect(created.status(), await created.text()).toBe(201);
  const id = (await created.json()).id as number;
  expect((await api.post(`/api/admin/campaigns/${id}/start`)).status()).toBe(200);
  await expect.poll(async () => (await (await api.get(`/api/admin/campaigns/${id}`)).json()).status, { timeout: 30_000 }).toBe('finished');

  const today = new Date().toISOString().slice(0, 10);
  await page.goto(`/analytics?conversationType=${typeId}&from=${today}&to=${today}`);
  const main = page.getByRole('main');
  const row = main.getByRole('table', { name: 'Campaigns' }).getByRole('row').filter({ hasText: 'Figures' });
  // Contacted, answered, sent, voicemail, no answer / busy, booked, opted out, failed.
  await expect(row).toHaveText(/Figures \d+1010000/);
  const download = page.waitForEvent('download');
  await main.getByRole('button', { name: 'Export Campaigns CSV' }).click();
  const csv = await readFile(await (await download).path(), 'utf8');
  expect(csv.split('\r\n')[0]).toBe('campaign,channel,status,contacted,answered,sent,voicemail,noAnswer,booked,optedOut,failed');
  expect(csv).toMatch(/Figures \d+,sms,finished,1,0,1,0,0,0,0,0/);
  await page.screenshot({ path: 'test-results/analytics-campaigns.png', fullPage: true });
});
