import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';

const DEMO_TYPE = 'Demo: Sales assistant';
/** The agent answers after its debounce window and a job poll; the live stream brings it in at once. */
const AGENT_TIMEOUT = 20_000;

/** Starts a web chat of the demo type through the API and returns its uuid. */
async function startDemoChat(request: APIRequestContext): Promise<string> {
  const types = await (await request.get('/api/conversation-type/listt')).json();
  const demo = types.find((t: { title: string }) => t.title === DEMO_TYPE);
  expect(demo, 'the demo type is seeded at start').toBeTruthy();
  const res = await request.post('/api/conversation/new', { data: { conversationTypeId: demo.id } });
  expect(res.status()).toBe(201);
  return (await res.json()).uuid;
}

const messages = (page: Page) => page.getByTestId('message');
const visitorMessages = (page: Page) => page.locator('[data-testid="message"][data-role="PROSPECT"]');

async function send(page: Page, text: string) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

test.describe('conversations', () => {
  test('a visitor starts the demo type and talks with the offline demo agent to the end', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Start new conversation' })).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Conversation type' })).toHaveValue(DEMO_TYPE);
    await page.getByRole('button', { name: 'Start new conversation' }).click();
    await expect(page).toHaveURL(/\/conversation\/[0-9a-f-]{36}$/);

    await expect(messages(page).first()).toContainText('Maya from Brightdesk');
    // Issue 12: visitors see no phase codes or internal labels (the team does, see below).
    await expect(page.getByText('Demo agent (offline)', { exact: true })).toHaveCount(0);
    await expect(page.getByTestId('phase-badge')).toHaveCount(0);

    // Empty text is not sent; Shift+Enter adds a line, Enter sends.
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('   ');
    await box.press('Enter');
    await expect(messages(page)).toHaveCount(1);
    await box.fill('We are a team of five');
    await box.press('Shift+Enter');
    await box.pressSequentially('drowning in email');
    await expect(box).toHaveValue('We are a team of five\ndrowning in email');
    await box.press('Enter');
    await expect(box).toHaveValue('');
    await expect(messages(page).nth(1)).toHaveAttribute('data-role', 'PROSPECT');
    await expect(messages(page).nth(1)).toContainText('We are a team of five');
    // The reply arrives live (server-sent events), without reloading.
    await expect(messages(page).nth(2)).toHaveAttribute('data-role', 'AGENT', { timeout: AGENT_TIMEOUT });
    await expect(messages(page).nth(2)).toContainText('Demo agent (offline)');

    // Each prospect message moves the demo agent on one phase, until the conversation ends (phase N = 3).
    // The visitor sees the agent typing, then the closing notice instead of the message box (issue 12).
    for (let turn = 0; turn < 6; turn++) {
      if (await page.getByTestId('closing-notice').isVisible()) break;
      const count = await messages(page).count();
      await send(page, `Answer number ${turn + 1}`);
      await expect(messages(page).nth(count)).toContainText(`Answer number ${turn + 1}`);
      // The agent answers, or its last turn ends the playbook and the notice replaces the box.
      await expect(messages(page).nth(count + 1).or(page.getByTestId('closing-notice')).first()).toBeVisible({ timeout: AGENT_TIMEOUT });
    }
    await expect(page.getByTestId('closing-notice')).toContainText('This conversation has ended', { timeout: AGENT_TIMEOUT });
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
    await page.screenshot({ path: '/tmp/conversations-detail-visitor.png', fullPage: true });

    // Anonymous visitors get no admin controls.
    await expect(page.getByRole('button', { name: 'Delete conversation' })).toHaveCount(0);
  });

  test('a failed refresh keeps the conversation and the draft with a Reconnecting notice; the draft survives a reload (issue 18)', async ({
    page,
    request,
  }) => {
    const uuid = await startDemoChat(request);
    await page.goto(`/conversation/${uuid}`);
    await expect(messages(page).first()).toContainText('Maya from Brightdesk');
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('A reply I am still writing');

    // The server cannot be reached for the conversation (a deploy, a Wi-Fi blip): its 10 s refresh fails.
    const conversationUrl = `**/api/conversation/${uuid}`;
    await page.route(conversationUrl, (route) => route.abort('internetdisconnected'));
    await expect(page.getByTestId('reconnecting')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('reconnecting')).toHaveText('Reconnecting…');
    // Nothing was replaced: the thread and the box with what was typed are still there.
    await expect(box).toHaveValue('A reply I am still writing');
    await expect(messages(page).first()).toContainText('Maya from Brightdesk');
    await expect(page.getByText(/^Error:/)).toHaveCount(0);

    // Back online: the next refresh succeeds and the notice goes.
    await page.unroute(conversationUrl);
    await expect(page.getByTestId('reconnecting')).toHaveCount(0, { timeout: 25_000 });
    await expect(box).toHaveValue('A reply I am still writing');

    // The draft is kept per conversation across a reload, and forgotten once sent.
    await page.reload();
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('A reply I am still writing');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(visitorMessages(page).first()).toContainText('A reply I am still writing');
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
    await page.reload();
    await expect(messages(page).first()).toContainText('Maya from Brightdesk');
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  });

  test('viewOnly hides the send box; unknown and malformed uuids show the spec texts', async ({ page, request }) => {
    const uuid = await startDemoChat(request);
    await page.goto(`/conversation/${uuid}?viewOnly=true`);
    await expect(messages(page).first()).toContainText('Maya from Brightdesk');
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
    await page.goto(`/conversation/${uuid}`);
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();

    await page.goto('/conversation/00000000-0000-4000-8000-000000000000');
    await expect(page.getByText('No conversation found')).toBeVisible();
    await page.goto('/conversation/not-a-uuid');
    await expect(page.getByText(/^Error: /)).toBeVisible();
  });

  test('an ADMIN changes the phase, edits and deletes messages, sends a follow-up and deletes the conversation', async ({ page, request }) => {
    const uuid = await startDemoChat(request);
    const sent = await request.post(`/api/conversation/${uuid}/written-message`, { data: { message: 'First visitor line' } });
    expect(sent.status()).toBe(200);
    await request.post(`/api/conversation/${uuid}/written-message`, { data: { message: 'Second visitor line' } });
    // The demo agent answers the visitor first: wait for it, so the page does not change under the clicks below.
    await expect
      .poll(
        async () => {
          const detail = (await (await request.get(`/api/conversation/${uuid}`)).json()) as { messages: { role: string; message: string }[] };
          const last = detail.messages.at(-1);
          return last?.role === 'AGENT' && last.message.includes('Second visitor line');
        },
        { timeout: AGENT_TIMEOUT },
      )
      .toBe(true);

    await signInAsAdmin(page);
    await page.goto(`/conversation/${uuid}`);
    await expect(visitorMessages(page).filter({ hasText: 'Second visitor line' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Delete conversation' })).toBeVisible();

    // Phase select: special codes and phase prompts cut to 50 characters.
    await page.getByRole('combobox', { name: 'Phase' }).click();
    for (const label of ['-3: Waiting for more messages', '-2: Needs human intervention', '-1: Errored', '3: End conversation', '9999: Ignored conversation']) {
      await expect(page.getByRole('option', { name: label })).toBeVisible();
    }
    const discovery = page.getByRole('option', { name: /^0: Discovery/ });
    expect(((await discovery.textContent()) ?? '').length).toBeLessThanOrEqual('0: '.length + 50);
    await page.getByRole('option', { name: '-2: Needs human intervention' }).click();
    await expect(page.getByText('Phase updated')).toBeVisible();
    await expect(page.getByTestId('phase-badge')).toContainText('Needs human intervention');
    await page.screenshot({ path: '/tmp/conversations-detail-admin.png', fullPage: true });

    // Edit a message (trimmed, Enter saves).
    const first = visitorMessages(page).filter({ hasText: 'First visitor line' });
    const firstId = (await first.getByRole('button', { name: /^Edit message / }).getAttribute('aria-label'))!.replace('Edit message ', '');
    await first.getByRole('button', { name: `Edit message ${firstId}` }).click();
    const editor = page.getByRole('textbox', { name: 'Edit message' });
    await editor.fill('  Edited visitor line  ');
    await editor.press('Enter');
    await expect(page.getByText('Message updated successfully')).toBeVisible();
    await expect(visitorMessages(page).filter({ hasText: 'Edited visitor line' })).toBeVisible();

    // Delete one selected message, no confirmation.
    await page.getByRole('checkbox', { name: `Select message ${firstId}` }).check();
    await page.getByRole('button', { name: /Delete selected messages/ }).click();
    await expect(page.getByText('Messages deleted')).toBeVisible();
    await expect(visitorMessages(page).filter({ hasText: 'Edited visitor line' })).toHaveCount(0);

    // The other line too: back in a working phase the agent answers an unanswered prospect message at once (and
    // may move on a phase), which is not what this test is about.
    const second = visitorMessages(page).filter({ hasText: 'Second visitor line' });
    const secondId = (await second.getByRole('button', { name: /^Edit message / }).getAttribute('aria-label'))!.replace('Edit message ', '');
    await page.getByRole('checkbox', { name: `Select message ${secondId}` }).check();
    await page.getByRole('button', { name: /Delete selected messages/ }).click();
    await expect(visitorMessages(page)).toHaveCount(0);

    // Follow-up after confirmation; the agent writes one only in a working phase.
    await page.getByRole('combobox', { name: 'Phase' }).click();
    await page.getByRole('option', { name: /^1: Value/ }).click();
    await expect(page.getByTestId('phase-badge')).toContainText('Phase 1');
    const before = await messages(page).count();
    await page.getByRole('button', { name: 'Follow-up' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('follow-up');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByText('Follow-up sent')).toBeVisible();
    await expect(messages(page)).toHaveCount(before + 1);
    await expect(messages(page).last()).toContainText('Just checking in');

    // Select all, delete all. The earlier 'Messages deleted' toast must be gone first, or two would match;
    // toasts pause their 3 s timer while hovered, so move the pointer off the toast column.
    await page.mouse.move(5, 700);
    await expect(page.getByText('Messages deleted')).toHaveCount(0);
    await page.getByRole('checkbox', { name: 'Select all' }).check();
    await page.getByRole('button', { name: /Delete selected messages/ }).click();
    await expect(page.getByText('Messages deleted')).toBeVisible();
    await expect(messages(page)).toHaveCount(0);

    await page.getByRole('button', { name: 'Delete conversation' }).click();
    await expect(page.getByText('Conversation deleted')).toBeVisible();
    await expect(page).toHaveURL(/\/conversation\/list$/);
    expect((await request.get(`/api/conversation/${uuid}`)).status()).toBe(404);
  });

  test('the list shows every column and keeps filters, order and page size in the query string', async ({ page, request }) => {
    const uuid = await startDemoChat(request);
    await request.post(`/api/conversation/${uuid}/written-message`, { data: { message: 'Listed visitor' } });
    await signInAsAdmin(page);
    // The spec's table is the table view of the inbox route (issue 12), kept in the query string.
    await page.goto('/conversation/list?view=table&orderBy=latestConversations&hasRecording=false');
    const table = page.getByRole('table', { name: 'Conversations' });
    for (const column of ['UUID', 'Type', 'Rating', 'Phase', 'Recording Duration', 'Recording URL', 'Messages', 'Last Message Date', 'Prospect UUID', 'Messaging Account']) {
      await expect(table.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
    }
    await expect(page.getByRole('combobox', { name: 'Order by' })).toHaveValue('Latest conversations');
    await expect(page.getByRole('combobox', { name: 'Has recording' })).toHaveValue('Without recording');
    await expect(table.getByRole('link', { name: uuid })).toBeVisible();

    await page.getByLabel('UUID', { exact: true }).fill(uuid.slice(0, 13));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(new RegExp(`uuid=${uuid.slice(0, 13)}`));
    await expect(page).toHaveURL(/orderBy=latestConversations/);
    await expect(table.getByRole('row')).toHaveCount(2);
    await expect(table.getByRole('row').nth(1)).toContainText('Demo: Sales assistant'.slice(0, 29));
    await expect(table.getByRole('row').nth(1)).toContainText('Web chat');

    await page.getByRole('combobox', { name: 'Page size' }).selectOption('50');
    await expect(page).toHaveURL(/limit=50/);
    await page.reload();
    await expect(page.getByLabel('UUID', { exact: true })).toHaveValue(uuid.slice(0, 13));
    await expect(table.getByRole('link', { name: uuid })).toBeVisible();
    await page.screenshot({ path: '/tmp/conversations-list.png', fullPage: true });

    await page.getByRole('button', { name: 'Reset' }).click();
    await expect(page).toHaveURL(/\/conversation\/list\?view=table&limit=50$/);
    await table.getByRole('link', { name: uuid }).click();
    await expect(page).toHaveURL(new RegExp(`/conversation/${uuid}$`));
  });

  test('a NORMAL user without grants sees an empty list (web chats belong to no account)', async ({ page, request }) => {
    const email = `conv-normal-${Date.now()}@example.com`;
    await request.post('/api/user/register', { data: { email, password: 'e2e-user-password-7' } });
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('e2e-user-password-7');
    await page.getByRole('button', { name: 'Login' }).click();
    await expect(page.getByRole('button', { name: 'User menu' })).toHaveText(email);
    await page.goto('/conversation/list');
    // Issue 12: the empty state says what to do, and 'Page 1 of 0' never shows.
    await expect(page.getByTestId('empty-state')).toContainText('No conversations yet.');
    await expect(page.getByTestId('empty-state')).toContainText('ask an administrator to grant you one');
    await expect(page.getByText('Page 1 of 0')).toHaveCount(0);
  });
});
