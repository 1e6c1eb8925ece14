import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { confirmModal, signInAsAdmin, demoTypeId, uniqueDigits } from './support/fixtures.ts';

/**
 * The webhook simulator (spec §2.11, issue #8) on each of the five channels: a simulated inbound message goes
 * through the real webhook pipeline, the offline demo agent answers, and the conversation shows both with
 * its channel. Replies to simulated prospects are stored but never sent, so no provider fake is needed.
 */

/** The agent answers after its debounce window and a job poll; the live stream brings it in at once. */
const AGENT_TIMEOUT = 20_000;
const SUCCESS = 'Webhook simulated successfully!';

type AccountType = 'INSTAGRAM' | 'FACEBOOK' | 'WHATSAPP' | 'TWILIO' | 'SMS_GATEWAY';

const unique = () => uniqueDigits();

/** Creates a messaging account through the admin API (the page's session) and sets its config. */
async function createAccount(
  request: APIRequestContext,
  account: { type: AccountType; pageId: string; pageName: string; conversationTypeId: number; config?: object },
): Promise<number> {
  const res = await request.post('/api/admin/messaging-accounts/create-edit', {
    data: { type: account.type, pageId: account.pageId, pageName: account.pageName, accessToken: `token-${account.pageId}`, conversationTypeId: account.conversationTypeId },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
  const id = (await res.json()).messagingAccount.id as number;
  if (account.config) {
    const saved = await request.post(`/api/admin/messaging-accounts/${id}/config`, {
      data: JSON.stringify(account.config),
      headers: { 'content-type': 'application/json' },
    });
    expect(saved.status(), await saved.text()).toBe(200);
  }
  return id;
}

async function chooseOption(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** Checks a toast and closes it, so a later identical notice is really a new one. */
async function expectToast(page: Page, text: string) {
  const toast = page.getByRole('alert').filter({ hasText: text });
  await expect(toast).toBeVisible();
  await toast.getByRole('button').click();
  await expect(toast).toHaveCount(0);
}

const messages = (page: Page) => page.getByTestId('message');

interface ChannelCase {
  type: AccountType;
  label: string;
  pageId: () => string;
  sender: () => string;
  config?: object;
  profileName?: string;
}

const CHANNELS: ChannelCase[] = [
  { type: 'INSTAGRAM', label: 'Instagram', pageId: () => `1784${unique()}`, sender: () => `9${unique()}` },
  { type: 'FACEBOOK', label: 'Messenger', pageId: () => `10${unique()}`, sender: () => `62${unique()}` },
  {
    type: 'WHATSAPP',
    label: 'WhatsApp',
    pageId: () => `1065${unique()}`,
    sender: () => `1650${unique().slice(-7)}`,
    config: { wabaId: '102290129340398' },
    profileName: 'Ada Lovelace',
  },
  { type: 'TWILIO', label: 'Twilio SMS', pageId: () => `+1555${unique().slice(-7)}`, sender: () => `+1650${unique().slice(-7)}`, config: { accountSid: 'AC00000000000000000000000000000001' } },
  {
    type: 'SMS_GATEWAY',
    label: 'SMS gateway',
    pageId: () => `device-${unique()}`,
    sender: () => `+1415${unique().slice(-7)}`,
    config: { baseUrl: 'http://127.0.0.1:9/3rdparty/v1', signingKey: 'e2e-signing-key' },
  },
];

/** Fills and sends the simulator form for one channel; returns after the success notice. */
async function simulate(page: Page, c: { label: string; sender: string; receiver: string; text: string; profileName?: string }) {
  await page.goto('/admin/webhook-simulation-tool');
  await expect(page.getByRole('heading', { name: 'Webhook simulation tool' })).toBeVisible();
  if (c.label !== 'Instagram') await chooseOption(page, 'Channel', c.label);
  await page.getByRole('textbox', { name: 'Sender' }).fill(c.sender);
  if (c.profileName) await page.getByRole('textbox', { name: 'Profile name' }).fill(c.profileName);
  await chooseOption(page, 'Receiver', c.receiver);
  await page.getByRole('textbox', { name: 'Message text' }).fill(c.text);
  await page.getByRole('button', { name: 'Simulate webhook' }).click();
  await expectToast(page, SUCCESS);
}

test.describe('webhook simulator', () => {
  for (const channel of CHANNELS) {
    test(`${channel.label}: a simulated message reaches the agent, whose reply shows on the conversation`, async ({ page }) => {
      await signInAsAdmin(page);
      const typeId = await demoTypeId(page.request);
      const pageId = channel.pageId();
      const pageName = `${channel.label} line ${pageId}`;
      await createAccount(page.request, { type: channel.type, pageId, pageName, conversationTypeId: typeId, config: channel.config });
      const sender = channel.sender();
      const text = `Hello from ${channel.label}, do you have a plan for five people?`;

      await simulate(page, { label: channel.label, sender, receiver: `${pageName} (${pageId})`, text, profileName: channel.profileName });
      // The result card names the channel and links to the conversation once the inbound job has stored it.
      const result = page.locator('[aria-label="Last simulation"]');
      await expect(result.getByTestId('channel')).toHaveText(channel.label);
      if (channel.type === 'INSTAGRAM') await page.screenshot({ path: '/tmp/webhook-simulator.png', fullPage: true });
      await page.getByRole('link', { name: 'Open the conversation' }).click();
      await expect(page).toHaveURL(/\/conversation\/[0-9a-f-]{36}$/);

      await expect(messages(page).first()).toHaveAttribute('data-role', 'PROSPECT');
      await expect(messages(page).first()).toContainText(text);
      await expect(messages(page).nth(1)).toHaveAttribute('data-role', 'AGENT', { timeout: AGENT_TIMEOUT });
      await expect(messages(page).nth(1)).toContainText('Demo agent (offline)');
      await expect(page.getByTestId('channel')).toHaveText(channel.label);
      await expect(page.getByText(pageName, { exact: true })).toBeVisible();
      if (channel.profileName) await expect(page.getByTestId('prospect-name')).toHaveText(channel.profileName);
      // A prospect on a phone channel without a profile name is shown by their number (issue 24).
      else if (channel.type === 'TWILIO' || channel.type === 'SMS_GATEWAY') await expect(page.getByTestId('prospect-name')).toHaveText(sender);
      else await expect(page.getByTestId('prospect-name')).toHaveCount(0);
      if (channel.type === 'WHATSAPP') await page.screenshot({ path: '/tmp/webhook-conversation-whatsapp.png', fullPage: true });

      // The list shows the same channel and name for this conversation.
      const uuid = page.url().split('/').pop()!;
      await page.goto(`/conversation/list?view=table&uuid=${uuid}`);
      const row = page.getByRole('row').filter({ hasText: uuid });
      await expect(row.getByTestId('channel')).toHaveText(channel.label);
      await expect(row).toContainText(pageName);
      if (channel.profileName) await expect(row.getByTestId('prospect-name')).toHaveText(channel.profileName);
      if (channel.type === 'WHATSAPP') await page.screenshot({ path: '/tmp/webhook-conversation-list.png', fullPage: true });
    });
  }

  test('the button stays disabled until sender, receiver and text are set', async ({ page }) => {
    await signInAsAdmin(page);
    const typeId = await demoTypeId(page.request);
    const pageId = `1784${unique()}`;
    const pageName = `Disabled check ${pageId}`;
    await createAccount(page.request, { type: 'INSTAGRAM', pageId, pageName, conversationTypeId: typeId });

    await page.goto('/admin/webhook-simulation-tool');
    const button = page.getByRole('button', { name: 'Simulate webhook' });
    await expect(page.getByRole('combobox', { name: 'Channel', exact: true })).toHaveValue('Instagram');
    await expect(button).toBeDisabled();
    await page.getByRole('textbox', { name: 'Sender' }).fill('12345');
    await expect(button).toBeDisabled();
    await chooseOption(page, 'Receiver', `${pageName} (${pageId})`);
    await expect(button).toBeDisabled();
    await page.getByRole('textbox', { name: 'Message text' }).fill('   ');
    await expect(button).toBeDisabled();
    await page.getByRole('textbox', { name: 'Message text' }).fill('Hi');
    await expect(button).toBeEnabled();
    await page.getByRole('textbox', { name: 'Sender' }).fill('');
    await expect(button).toBeDisabled();
    // Another channel lists only its own accounts: the Instagram receiver is gone.
    await page.getByRole('textbox', { name: 'Sender' }).fill('12345');
    await chooseOption(page, 'Channel', 'WhatsApp');
    await expect(page.getByRole('combobox', { name: 'Receiver', exact: true })).toHaveValue('');
    await expect(button).toBeDisabled();
  });

  test('an unknown receiver shows "Error simulating webhook: " with the reason', async ({ page }) => {
    await signInAsAdmin(page);
    const typeId = await demoTypeId(page.request);
    const pageId = `1784${unique()}`;
    const pageName = `Soon gone ${pageId}`;
    const accountId = await createAccount(page.request, { type: 'INSTAGRAM', pageId, pageName, conversationTypeId: typeId });

    await page.goto('/admin/webhook-simulation-tool');
    await page.getByRole('textbox', { name: 'Sender' }).fill(`9${unique()}`);
    await chooseOption(page, 'Receiver', `${pageName} (${pageId})`);
    await page.getByRole('textbox', { name: 'Message text' }).fill('Anyone there?');
    // The account disappears while the form is open: the server no longer knows the receiver.
    expect((await page.request.delete(`/api/messaging-accounts/${accountId}`)).status()).toBe(200);
    await page.getByRole('button', { name: 'Simulate webhook' }).click();
    await expectToast(page, `Error simulating webhook: No INSTAGRAM messaging account has the id ${pageId}.`);
    await expect(page.getByRole('link', { name: 'Open the conversation' })).toHaveCount(0);
  });

  test('rebuild history asks first, then shows the 409 sentence for a WhatsApp conversation; web chats have no button', async ({ page }) => {
    await signInAsAdmin(page);
    const typeId = await demoTypeId(page.request);
    const pageId = `1065${unique()}`;
    const pageName = `WhatsApp rebuild ${pageId}`;
    await createAccount(page.request, { type: 'WHATSAPP', pageId, pageName, conversationTypeId: typeId });
    await simulate(page, { label: 'WhatsApp', sender: `1650${unique().slice(-7)}`, receiver: `${pageName} (${pageId})`, text: 'Rebuild me' });
    await page.getByRole('link', { name: 'Open the conversation' }).click();
    await expect(messages(page).first()).toContainText('Rebuild me');

    // Cancel leaves everything as it was.
    await page.getByRole('button', { name: 'Rebuild history' }).click();
    await expect(page.getByRole('dialog')).toContainText('Rebuild the message history from the channel?');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);

    await page.getByRole('button', { name: 'Rebuild history' }).click();
    await confirmModal(page, 'Rebuild the message history from the channel?');
    await expectToast(page, 'WhatsApp offers no message history to rebuild from: the stored messages are all there is.');
    await expect(messages(page).first()).toContainText('Rebuild me');

    // A web chat has no prospect, so no rebuild button (spec §6), and its channel is "Web chat".
    const res = await page.request.post('/api/conversation/new', { data: { conversationTypeId: typeId } });
    expect(res.status()).toBe(201);
    await page.goto(`/conversation/${(await res.json()).uuid}`);
    await expect(page.getByTestId('channel')).toHaveText('Web chat');
    await expect(page.getByRole('button', { name: 'Delete conversation' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Rebuild history' })).toHaveCount(0);
  });
});
