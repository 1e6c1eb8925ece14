import { type APIRequestContext, type Page, expect, request as playwrightRequest, test } from '@playwright/test';
import twilio from 'twilio';
import { E2E_ADMIN, signInAsAdmin } from './support/fixtures.ts';
import { e2eTwilioAccount } from './support/twilio-account.ts';
import { E2E_TWILIO } from './support/constants.ts';

/**
 * Make a Call (spec §2.5, §2.2, §5) against the loopback Twilio REST fake (E2E_FAKE_TWILIO) and the offline
 * demo agent of the first E2E server. After the call is placed, the test plays Twilio: it posts the signed
 * callbacks a real call would (status, TwiML request, speech <Gather> answer), and the viewOnly page shows the
 * call status and the transcript live.
 */
const BASE = `http://localhost:${Number(process.env.E2E_PORT ?? 3100)}`;

async function adminApi(): Promise<APIRequestContext> {
  const api = await playwrightRequest.newContext({ baseURL: BASE });
  expect((await api.post('/api/user/login', { data: E2E_ADMIN })).status()).toBe(200);
  return api;
}

/** A TWILIO messaging account of the fake's account, and a two-phase playbook calling from it. */
async function createCallingType(api: APIRequestContext, title: string) {
  const accountId = await e2eTwilioAccount(api, 'Sales line');
  const type = await api.post('/api/admin/conversation-type/create-edit', {
    data: { title, rolePrompt: 'You are Sam from SunCo.', errorPrompt: 'A colleague will call back.', initialMessage: 'Hi, this is Sam from SunCo!', messagingAccountId: accountId },
  });
  expect(type.status(), await type.text()).toBe(200);
  const id = (await type.json()).conversationType.id as number;
  for (const index of [0, 1]) {
    const phase = await api.post('/api/admin/conversation-phase/create-edit', {
      data: { index, prompt: `Learn about the roof, step ${index + 1}.`, transitionPrompt: 'They answered.', conversationType: { id } },
    });
    expect(phase.status(), await phase.text()).toBe(200);
  }
  return id;
}

async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** Posts a voice callback signed as Twilio signs it (Auth Token over PUBLIC_URL + path and the sorted form). */
async function twilioPosts(api: APIRequestContext, path: string, form: Record<string, string>) {
  const signature = twilio.getExpectedTwilioSignature(E2E_TWILIO.authToken, BASE + path, form);
  const res = await api.post(path, { headers: { 'x-twilio-signature': signature }, form });
  expect(res.status(), await res.text()).toBe(200);
  return res.text();
}

test('validation, errors as toasts with the server sentence, then the call opens view-only with its live status and transcript', async ({ page }) => {
  const api = await adminApi();
  const stamp = Date.now();
  const longTitle = `Roof leads ${stamp} — the long playbook name that goes on well past seventy characters`;
  const typeId = await createCallingType(api, longTitle);
  const noAccount = await api.post('/api/admin/conversation-type/create-edit', {
    data: { title: `Chat only ${stamp}`, rolePrompt: 'You chat.', errorPrompt: 'Sorry.' },
  });
  expect(noAccount.status()).toBe(200);
  await signInAsAdmin(page);

  await page.goto(`/admin/call?conversationType=${typeId}`);
  await expect(page.getByRole('heading', { name: 'Make a Call' })).toBeVisible();
  const shortLabel = `${longTitle.slice(0, 69)}…`;
  await expect(page.getByRole('combobox', { name: 'Conversation type' })).toHaveValue(shortLabel);
  await expect(page.getByRole('checkbox', { name: 'Realtime API' })).toBeChecked();
  const callButton = page.getByRole('button', { name: 'Call', exact: true });
  await expect(callButton).toBeDisabled();

  // Not E.164: said under the field, and by the server when called anyway.
  const phone = page.getByRole('textbox', { name: 'Phone number' });
  await phone.fill('415 555');
  await phone.blur();
  await expect(page.getByText('The phone number must be in international E.164 format, e.g. +14155550123.').first()).toBeVisible();
  await expect(callButton).toBeEnabled();
  await callButton.click();
  await expect(page.locator('[data-toast-type="error"]')).toContainText('E.164');
  await phone.fill('');
  await expect(callButton).toBeDisabled();

  // A type without a Twilio account: the server's sentence as a toast, and the page stays.
  await phone.fill('+14155550199');
  await choose(page, 'Conversation type', `Chat only ${stamp}`);
  await callButton.click();
  await expect(page.locator('[data-toast-type="error"]').filter({ hasText: 'no Twilio messaging account' })).toBeVisible();
  // The refusal also stays on the form, naming the account type as the screens do (issue 24).
  await expect(page.getByTestId('call-error')).toContainText('Choose a Twilio SMS account');
  await expect(page).toHaveURL(/\/admin\/call/);

  // The classic pipeline this time, for a contact.
  await choose(page, 'Conversation type', shortLabel);
  await page.getByRole('textbox', { name: 'Contact id' }).fill('ct-e2e-1');
  await page.getByRole('checkbox', { name: 'Realtime API' }).uncheck();
  await callButton.click();
  await expect(page).toHaveURL(/\/conversation\/[0-9a-f-]{36}\?viewOnly=true$/);
  const uuid = /\/conversation\/([0-9a-f-]{36})/.exec(page.url())![1];
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
  await expect(page.getByTestId('call-status-badge')).toHaveText('Call: Queued');
  await expect(page.getByTestId('call-status')).toContainText('Outbound · Classic voice');

  // Twilio's side of the call: answered, the opening line, the prospect speaks, the agent answers.
  const callSid = `CA${'0'.repeat(24)}${String(stamp).slice(-8)}`;
  const form = { AccountSid: E2E_TWILIO.accountSid, CallSid: callSid, From: E2E_TWILIO.number, To: '+14155550199' };
  await twilioPosts(api, `/api/voice/calls/${uuid}/status`, { ...form, CallStatus: 'in-progress' });
  await expect(page.getByTestId('call-status-badge')).toHaveText('Call: In progress');
  const opening = await twilioPosts(api, `/api/voice/calls/${uuid}/twiml`, { ...form, CallStatus: 'in-progress' });
  expect(opening).toContain('<Say language="en-US">Hi, this is Sam from SunCo!</Say>');
  const log = page.getByRole('log', { name: 'Messages' });
  await expect(log).toContainText('Hi, this is Sam from SunCo!');
  const turn = await twilioPosts(api, `/api/voice/calls/${uuid}/gather?silences=0`, { ...form, CallStatus: 'in-progress', SpeechResult: 'We have a leaking roof.' });
  expect(turn).toContain('<Gather input="speech"');
  await expect(log).toContainText('We have a leaking roof.');
  await expect(log).toContainText('Learn about the roof, step 2.');

  await twilioPosts(api, `/api/voice/calls/${uuid}/status`, { ...form, CallStatus: 'completed', CallDuration: '42' });
  await expect(page.getByTestId('call-status-badge')).toHaveText('Call: Completed');
  await expect(page.getByTestId('call-status')).toContainText('Length 0m 42s');
  await api.dispose();
});

test('without ?conversationType nothing is preselected: Call waits for both phone and type', async ({ page }) => {
  const api = await adminApi();
  const typeId = await createCallingType(api, `Preselect check ${Date.now()}`);
  await signInAsAdmin(page);
  await page.goto('/admin/call');
  const callButton = page.getByRole('button', { name: 'Call', exact: true });
  await expect(page.getByRole('combobox', { name: 'Conversation type' })).toHaveValue('');
  await page.getByRole('textbox', { name: 'Phone number' }).fill('+14155550100');
  await expect(callButton).toBeDisabled();
  await page.getByRole('combobox', { name: 'Conversation type' }).click();
  await page.getByRole('option', { name: new RegExp(`^Preselect check`) }).first().click();
  await expect(callButton).toBeEnabled();
  await page.getByRole('textbox', { name: 'Phone number' }).fill('  ');
  await expect(callButton).toBeDisabled();

  // An unknown id in the URL is not kept.
  await page.goto(`/admin/call?conversationType=${typeId + 100000}`);
  await expect(page.getByRole('combobox', { name: 'Conversation type' })).toHaveValue('');
  await api.dispose();
});
