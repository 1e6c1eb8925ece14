import { type APIRequestContext, type Page, expect, request as playwrightRequest, test } from '@playwright/test';
import twilio from 'twilio';
import { E2E_TWILIO } from './support/constants.ts';
import { E2E_ADMIN, signInAsAdmin } from './support/fixtures.ts';
import { e2eTwilioAccount } from './support/twilio-account.ts';

/**
 * The CRM contacts page (spec §2.6, §4, §5, §9) against the loopback GoHighLevel fake of the second E2E
 * server (E2E_FAKE_GHL): "Solar leads" has 25 contacts in "New lead" (every 7th without a phone) and one in
 * "Contacted"; "Roof repairs" has one. Calls go through the Twilio fake of the same server (E2E_FAKE_TWILIO).
 */
const FAKE_PORT = Number(process.env.E2E_PORT ?? 3100) + 50;
test.use({ baseURL: `http://localhost:${FAKE_PORT}` });

async function adminApi(): Promise<APIRequestContext> {
  const api = await playwrightRequest.newContext({ baseURL: `http://localhost:${FAKE_PORT}` });
  expect((await api.post('/api/user/login', { data: E2E_ADMIN })).status()).toBe(200);
  return api;
}

/** A TWILIO messaging account of the Twilio fake's account, to call from. */
const createTwilioAccount = (api: APIRequestContext) => e2eTwilioAccount(api, 'CRM line');

/** A CRM-linked type (bare "GHL": the server's GHL_API_KEY and GHL_LOCATION_ID, i.e. the fake). */
async function createCrmType(api: APIRequestContext, config = '"GHL"', messagingAccountId: number | null = null): Promise<{ id: number; title: string }> {
  const title = `CRM leads ${Date.now()}`;
  const res = await api.post('/api/admin/conversation-type/create-edit', {
    data: { title, rolePrompt: 'You are Sam from SunCo.', errorPrompt: 'A colleague will call back.', initialMessage: 'Hi, this is Sam from SunCo!', config, messagingAccountId },
  });
  expect(res.status(), await res.text()).toBe(200);
  return { id: (await res.json()).conversationType.id, title };
}

async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

const rows = (page: Page) => page.getByRole('table', { name: 'Contacts' }).getByRole('row').filter({ has: page.getByRole('cell') });
const pageLabel = (page: Page) => page.getByTestId('contacts-page');

test('pick pipeline and stage, page forward and back, change page size, Call a contact into a new tab', async ({ page, context }) => {
  const api = await adminApi();
  // Calls from a Twilio account; an unanswered call moves the contact to "Needs follow-up" (write-back).
  const type = await createCrmType(api, '{"crm": "GHL", "stageOnOutcome": {"notReached": "st-human"}}', await createTwilioAccount(api));
  // {"crm":"GHL"} shows the Contacts button too, not only the bare "GHL".
  const bareType = await createCrmType(api);
  const plainType = await createCrmType(api, '{}');
  await signInAsAdmin(page);

  await page.goto('/admin/conversation-type/list');
  await expect(page.getByRole('row', { name: `Conversation type ${bareType.id}` }).getByRole('link', { name: 'Contacts' })).toBeVisible();
  await expect(page.getByRole('row', { name: `Conversation type ${plainType.id}` }).getByRole('link', { name: 'Contacts' })).toHaveCount(0);
  await page.getByRole('row', { name: `Conversation type ${type.id}` }).getByRole('link', { name: 'Contacts' }).click();
  await expect(page).toHaveURL(`/admin/conversation-type/${type.id}/contacts`);
  await expect(page.getByRole('heading', { name: 'Contacts' })).toBeVisible();

  // Spec §5: no stage before a pipeline.
  await expect(page.getByRole('combobox', { name: 'Stage' })).toBeDisabled();
  await expect(page.getByRole('combobox', { name: 'Items per page' })).toHaveValue('10');
  await choose(page, 'Pipeline', 'Solar leads');
  await expect(page.getByRole('combobox', { name: 'Stage' })).toBeEnabled();
  await expect(pageLabel(page)).toHaveText('1 of 3'); // 26 contacts in the whole pipeline

  await choose(page, 'Stage', 'New lead');
  await expect(pageLabel(page)).toHaveText('1 of 3');
  await expect(rows(page)).toHaveCount(10);
  await expect(rows(page).first()).toContainText('Contact 01');
  await expect(rows(page).first()).toContainText('+15550000001');
  await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled();

  // Forward with the answer's cursor, to the last page; back with the stored one.
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(pageLabel(page)).toHaveText('2 of 3');
  await expect(rows(page).first()).toContainText('Contact 11');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(pageLabel(page)).toHaveText('3 of 3');
  await expect(rows(page)).toHaveCount(5);
  await expect(rows(page).first()).toContainText('Contact 21');
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(pageLabel(page)).toHaveText('2 of 3');
  await expect(rows(page).first()).toContainText('Contact 11');
  await expect(page.getByRole('button', { name: 'Previous' })).toBeEnabled();

  // A contact without a phone cannot be called, and says why.
  const noPhone = rows(page).filter({ hasText: 'Contact 14' });
  await expect(noPhone).toContainText('No phone');
  await expect(noPhone.getByRole('button', { name: /Call Contact 14: This contact has no phone number/ })).toBeDisabled();

  // Page size 20 starts again at page 1.
  await choose(page, 'Items per page', '20');
  await expect(pageLabel(page)).toHaveText('1 of 2');
  await expect(rows(page)).toHaveCount(20);
  await expect(rows(page).first()).toContainText('Contact 01');
  await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(pageLabel(page)).toHaveText('2 of 2');
  await expect(rows(page)).toHaveCount(5);

  // A new stage starts again at page 1.
  await choose(page, 'Stage', 'Contacted');
  await expect(pageLabel(page)).toHaveText('1 of 1');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Casey Contacted');
  await choose(page, 'Stage', 'New lead');
  await expect(pageLabel(page)).toHaveText('1 of 2');

  // Call: a real call through POST /api/admin/call/{phone} (Twilio fake) for the contact; its conversation
  // opens in a new tab, view-only.
  const calls: { url: string; body: unknown }[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/admin/call/')) calls.push({ url: request.url(), body: request.postDataJSON() });
  });
  const newTab = context.waitForEvent('page');
  await rows(page).filter({ hasText: 'Contact 02' }).getByRole('button', { name: 'Call Contact 02' }).click();
  const tab = await newTab;
  await expect(tab).toHaveURL(/\/conversation\/[0-9a-f-]{36}\?viewOnly=true$/);
  const uuid = /\/conversation\/([0-9a-f-]{36})/.exec(tab.url())![1];
  await expect(tab.getByTestId('call-status-badge')).toHaveText('Call: Queued');
  await expect(tab.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
  expect(calls).toEqual([
    { url: `http://localhost:${FAKE_PORT}/api/admin/call/%2B15550000002`, body: { conversationTypeId: type.id, contactId: 'ct-02', useRealtimeApi: true } },
  ]);

  // Nobody answers: Twilio's final status reaches the server, and the write-back job moves the contact's
  // opportunity to the stage configured for that outcome ("Needs follow-up").
  const form = { AccountSid: E2E_TWILIO.accountSid, CallSid: `CA${'1'.repeat(24)}${String(Date.now()).slice(-8)}`, From: E2E_TWILIO.number, To: '+15550000002', CallStatus: 'no-answer' };
  const statusPath = `/api/voice/calls/${uuid}/status`;
  const signature = twilio.getExpectedTwilioSignature(E2E_TWILIO.authToken, `http://localhost:${FAKE_PORT}${statusPath}`, form);
  expect((await api.post(statusPath, { headers: { 'x-twilio-signature': signature }, form })).status()).toBe(200);
  await expect(tab.getByTestId('call-status-badge')).toHaveText('Call: No answer');
  await expect
    .poll(async () => (await (await api.get(`/api/admin/conversation-type/${type.id}/pipeline/contacts?pipelineId=pl-solar&stageId=st-human`)).json()).opportunities)
    .toEqual([{ id: 'opp-02', contact: { id: 'ct-02', name: 'Contact 02', phone: '+15550000002' } }]);
  await choose(page, 'Stage', 'Needs follow-up');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Contact 02');

  // Spec §4: a new pipeline clears the stage.
  await choose(page, 'Pipeline', 'Roof repairs');
  await expect(page.getByRole('combobox', { name: 'Stage' })).toHaveValue('');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Rory Roof');
  await api.dispose();
});

test('a type whose GoHighLevel is not configured shows why', async ({ page }) => {
  const api = await adminApi();
  const type = await createCrmType(api, '{"crm": "GHL", "locationId": "loc-fake-1", "apiKey": "pit-wrong-token-1234"}');
  await signInAsAdmin(page);
  await page.goto(`/admin/conversation-type/${type.id}/contacts`);
  await expect(page.getByText(/GoHighLevel refused the API key/)).toBeVisible();
  // The config page shows the token masked.
  await page.goto(`/admin/conversation-type/${type.id}/config`);
  const editor = page.locator('.cm-content');
  await expect(editor).toContainText('"apiKey": "••••1234"');
  await expect(editor).not.toContainText('pit-wrong-token');
  await api.dispose();
});
