import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { signInAsAdmin, registerUser, DEMO_TYPE, demoTypeId, uniqueDigits, signInAs } from './support/fixtures.ts';
import { DESKTOP, PHONE } from './support/viewport.ts';

/**
 * Issue 12: the team's inbox (list, open conversation and prospect panel side by side; list then
 * conversation on a phone), hand-off (take over, hand back), live updates from another session, each user's
 * own unread marks (on the server, the same on every device), and the
 * visitor's web chat to its closing notice with the message box always in view. Screenshots of the main
 * screens go to docs/screenshots/ when SCREENSHOTS=1.
 */

const AGENT_TIMEOUT = 20_000;
const SHOTS = process.env.SCREENSHOTS === '1';
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: `docs/screenshots/${name}.png` });
  else await page.screenshot({ path: `/tmp/g1-${name}.png` });
};

const unique = () => uniqueDigits();

/** An Instagram account on the demo type (ADMIN session of `request`). */
async function createInstagramAccount(request: APIRequestContext, typeId: number) {
  const pageId = `1784${unique()}`;
  const pageName = `Inbox line ${pageId}`;
  const res = await request.post('/api/admin/messaging-accounts/create-edit', {
    data: { type: 'INSTAGRAM', pageId, pageName, accessToken: `token-${pageId}`, conversationTypeId: typeId },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
  return { id: (await res.json()).messagingAccount.id as number, pageId, pageName };
}

/** A prospect's Instagram message through the real webhook (accepted unsigned from an ADMIN session). */
async function prospectWrites(request: APIRequestContext, account: { id: number; pageId: string }, sender: string, text: string) {
  const ms = Date.now();
  // The simulator's way in: an ADMIN session from the app's own origin (channels.routes.ts isSimulator).
  const res = await request.post('/api/meta-api/webhook', {
    headers: { origin: `http://localhost:${process.env.E2E_PORT ?? 3100}` },
    data: {
      object: 'instagram',
      entry: [{ id: account.pageId, time: ms, messaging: [{ sender: { id: sender }, recipient: { id: account.pageId }, timestamp: ms, message: { mid: `m_e2e_${unique()}`, text } }] }],
    },
  });
  expect(res.status(), await res.text()).toBe(200);
  let uuid = '';
  await expect
    .poll(async () => {
      const found = await request.get('/api/admin/conversation/by-prospect', { params: { messagingAccountId: account.id, externalId: sender } });
      if (found.status() !== 200) return '';
      uuid = (await found.json()).uuid;
      return uuid;
    })
    .not.toBe('');
  return uuid;
}

const rowOf = (page: Page, uuid: string) => page.locator(`[data-testid="inbox-row"][data-uuid="${uuid}"]`);
const messages = (page: Page) => page.getByTestId('message');

test.describe('inbox at 1366×800', () => {
  test.use({ viewport: DESKTOP });

  test('open, reply, take over, hand back (buttons and keys), live updates from a second session, table view', async ({ page, browser }) => {
    test.setTimeout(120_000);
    await signInAsAdmin(page);
    const typeId = await demoTypeId(page.request);
    const account = await createInstagramAccount(page.request, typeId);
    const first = await prospectWrites(page.request, account, `9${unique()}`, 'Hi, do you have a plan for a team of five?');
    const second = await prospectWrites(page.request, account, `9${unique()}`, 'Second prospect asking about pricing');

    await page.goto('/conversation/list');
    await expect(page.getByRole('heading', { level: 1, name: 'Conversations' })).toBeVisible();
    // The preview is the last message: the prospect's, or the demo agent's reply if it already answered.
    await expect(rowOf(page, first)).toContainText(/Hi, do you have a plan|AI: /);
    await expect(rowOf(page, first).getByTestId('channel-icon')).toHaveAttribute('title', 'Instagram');
    await expect(rowOf(page, second)).toContainText(/Second prospect|AI: /);
    await expect(page.getByText('Page 1 of 0')).toHaveCount(0);

    // Open: list, conversation and the prospect panel side by side; the open conversation is in the URL.
    await rowOf(page, first).click();
    await expect(page).toHaveURL(new RegExp(`open=${first}`));
    const pane = page.getByTestId('conversation-pane');
    await expect(pane.getByTestId('message').first()).toContainText('Hi, do you have a plan');
    await expect(pane.getByTestId('message').nth(1)).toHaveAttribute('data-role', 'AGENT', { timeout: AGENT_TIMEOUT });
    const panel = page.getByTestId('prospect-panel');
    await expect(panel).toContainText('Instagram');
    await expect(panel).toContainText(account.pageName);
    await expect(panel.getByTestId('panel-ai-state')).toHaveText('AI working');
    await expect(panel).toContainText(/Step \d of 3/);
    // Relative times, the full date in the title.
    await expect(pane.locator('time').first()).toHaveText(/just now|min ago/);
    await expect(pane.locator('time').first()).toHaveAttribute('title', /\d/);
    await shot(page, 'inbox-desktop');

    // Reply from the keyboard: r focuses the reply; a person's message pauses the AI.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('r');
    const reply = page.getByRole('textbox', { name: 'Message' });
    await expect(reply).toBeFocused();
    await reply.fill('Hello, a person from the team here.');
    await reply.press('Enter');
    await expect(pane.getByTestId('message').last()).toContainText('a person from the team');
    await expect(pane.getByTestId('ai-state')).toHaveText('AI paused: a person answers');
    await expect(rowOf(page, first).getByTestId('row-state')).toHaveText('AI paused');
    await expect(panel.getByTestId('panel-ai-state')).toHaveText('AI paused: a person answers');

    // Hand back with the button, at a chosen phase.
    await pane.getByRole('combobox', { name: 'Resume at' }).click();
    await page.getByRole('option', { name: /^Step 2 of 3/ }).click();
    await pane.getByTestId('hand-back').click();
    await expect(page.getByText('The AI is answering again')).toBeVisible();
    await expect(pane.getByTestId('ai-state')).toHaveText('AI working');
    await expect(panel).toContainText('Step 2 of 3');
    await expect(rowOf(page, first).getByTestId('row-state')).toHaveCount(0);

    // Take over with the button, hand back with h.
    await pane.getByRole('button', { name: 'Take over' }).click();
    await expect(pane.getByTestId('ai-state')).toHaveText('AI paused: a person answers');
    await expect(rowOf(page, first).getByTestId('row-state')).toHaveText('AI paused');
    await reply.press('Escape');
    await page.keyboard.press('h');
    await expect(pane.getByTestId('ai-state')).toHaveText('AI working');

    // j/k move through the conversations.
    const order = await page.getByTestId('inbox-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-uuid')));
    const at = order.indexOf(first);
    await page.keyboard.press(at === 0 ? 'j' : 'k');
    const moved = order[at === 0 ? 1 : at - 1]!;
    await expect(page).toHaveURL(new RegExp(`open=${moved}`));
    await page.keyboard.press(at === 0 ? 'k' : 'j');
    await expect(page).toHaveURL(new RegExp(`open=${first}`));

    // A second session: a colleague writes on the open conversation, the prospect writes on the other one.
    const other = await browser.newContext({ viewport: DESKTOP });
    const colleague = await other.newPage();
    await signInAsAdmin(colleague);
    await colleague.goto(`/conversation/${first}`);
    const box = colleague.getByRole('textbox', { name: 'Message' });
    await box.fill('Written in another session');
    await box.press('Enter');
    await expect(pane.getByTestId('message').filter({ hasText: 'Written in another session' })).toBeVisible();
    await expect(rowOf(page, first).getByTestId('row-preview')).toContainText('Written in another session');
    await colleague.request.patch(`/api/conversation/${(await (await colleague.request.get(`/api/conversation/${second}`)).json()).id}`, { data: { phase: -2 } });
    await expect(rowOf(page, second)).toHaveAttribute('data-needs-human', 'true');
    await expect(rowOf(page, second).getByTestId('row-state')).toHaveText('Needs a person');
    await other.close();

    // The spec's table is a view of the same route, kept in the query string.
    await page.getByRole('group', { name: 'View' }).getByRole('link', { name: 'Table' }).click();
    await expect(page).toHaveURL(/view=table/);
    const table = page.getByRole('table', { name: 'Conversations' });
    for (const column of ['UUID', 'Type', 'Rating', 'Phase', 'Recording Duration', 'Recording URL', 'Messages', 'Last Message Date', 'Prospect UUID', 'Messaging Account']) {
      await expect(table.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
    }
    await expect(table.getByRole('link', { name: first })).toBeVisible();
    await shot(page, 'conversation-table-desktop');

    // Nothing matches: the empty state says what to do, and no 'Page 1 of 0'.
    await page.goto('/conversation/list?uuid=ffffffff');
    await expect(page.getByTestId('empty-state')).toContainText('No conversations match these filters.');
    await expect(page.getByTestId('total-pages')).toHaveCount(0);
    await page.getByRole('button', { name: 'Reset filters' }).click();
    await expect(page).not.toHaveURL(/uuid=/);
  });

  test('a NORMAL user sees only granted conversations and can take over and hand back', async ({ page, browser }) => {
    await signInAsAdmin(page);
    const typeId = await demoTypeId(page.request);
    const granted = await createInstagramAccount(page.request, typeId);
    const hidden = await createInstagramAccount(page.request, typeId);
    const mine = await prospectWrites(page.request, granted, `9${unique()}`, 'Granted prospect here');
    const theirs = await prospectWrites(page.request, hidden, `9${unique()}`, 'Someone else prospect');
    // Registered from the user's own context: registering signs that context in, not the admin's.
    const context = await browser.newContext({ viewport: DESKTOP });
    const user = await registerUser(context.request);
    const grant = await page.request.post('/api/admin/user-messaging-accounts/create', { data: { userEmail: user.email, messagingAccountId: granted.id } });
    expect(grant.status(), await grant.text()).toBeLessThan(300);

    const normal = await context.newPage();
    await signInAs(normal, user.email, user.password);
    await normal.goto('/conversation/list');
    await expect(rowOf(normal, mine)).toBeVisible();
    await expect(rowOf(normal, theirs)).toHaveCount(0);
    await rowOf(normal, mine).click();
    const pane = normal.getByTestId('conversation-pane');
    await pane.getByRole('button', { name: 'Take over' }).click();
    await expect(pane.getByTestId('ai-state')).toHaveText('AI paused: a person answers');
    await pane.getByTestId('hand-back').click();
    await expect(pane.getByTestId('ai-state')).toHaveText('AI working');
    await context.close();
  });

  test("unread marks are each user's own and the same on every device of theirs", async ({ page, browser }) => {
    test.setTimeout(90_000);
    await signInAsAdmin(page);
    const typeId = await demoTypeId(page.request);
    const account = await createInstagramAccount(page.request, typeId);
    const sender = `9${unique()}`;
    const uuid = await prospectWrites(page.request, account, sender, 'First question about seats');
    const lastMessage = async () => (await (await page.request.get(`/api/conversation/${uuid}`)).json()).messages.at(-1);
    // The AI answers, then a person takes over, so the prospect's next message stays the latest: unread.
    await expect.poll(async () => (await lastMessage()).role, { timeout: AGENT_TIMEOUT }).toBe('AGENT');
    const id = (await (await page.request.get(`/api/conversation/${uuid}`)).json()).id as number;
    expect((await page.request.post(`/api/conversation/${id}/take-over`)).status()).toBe(200);
    await prospectWrites(page.request, account, sender, 'Are you still there?');
    await expect.poll(async () => (await lastMessage()).message).toBe('Are you still there?');

    // A colleague (a NORMAL user granted the account) and a second device of the same ADMIN.
    const colleagueContext = await browser.newContext({ viewport: DESKTOP });
    const colleague = await registerUser(colleagueContext.request);
    const grant = await page.request.post('/api/admin/user-messaging-accounts/create', { data: { userEmail: colleague.email, messagingAccountId: account.id } });
    expect(grant.status(), await grant.text()).toBeLessThan(300);
    const colleaguePage = await colleagueContext.newPage();
    await signInAs(colleaguePage, colleague.email, colleague.password);
    const deviceContext = await browser.newContext({ viewport: DESKTOP });
    const device = await deviceContext.newPage();
    await signInAsAdmin(device);
    await device.goto('/conversation/list');
    await expect(rowOf(device, uuid)).toHaveAttribute('data-unread', 'true');

    // Opening it clears the mark at once, and tells the server.
    await page.goto('/conversation/list');
    await expect(rowOf(page, uuid)).toHaveAttribute('data-unread', 'true');
    await expect(rowOf(page, uuid).getByTestId('unread-mark')).toHaveText('New');
    const marked = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith(`/api/conversation/${uuid}/read`));
    await rowOf(page, uuid).click();
    await expect(rowOf(page, uuid).getByTestId('unread-mark')).toHaveCount(0);
    expect((await marked).status()).toBe(200);

    // The other device of the same user shows it read without a reload (its live stream hears the read mark);
    // the colleague still has it unread.
    await expect(rowOf(device, uuid)).not.toHaveAttribute('data-unread', 'true');
    await colleaguePage.goto('/conversation/list');
    await expect(rowOf(colleaguePage, uuid)).toHaveAttribute('data-unread', 'true');

    // A new prospect message: unread again on the other device (live), read at once where it is open.
    const markedAgain = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith(`/api/conversation/${uuid}/read`));
    await prospectWrites(page.request, account, sender, 'One more thing about invoices');
    await expect(rowOf(device, uuid)).toHaveAttribute('data-unread', 'true');
    await expect(page.getByTestId('conversation-pane').getByTestId('message').last()).toContainText('One more thing about invoices');
    expect((await markedAgain).status()).toBe(200);
    await expect(rowOf(page, uuid)).not.toHaveAttribute('data-unread', 'true');
    await expect(rowOf(device, uuid)).not.toHaveAttribute('data-unread', 'true');
    await expect(rowOf(colleaguePage, uuid)).toHaveAttribute('data-unread', 'true');

    // The colleague reads it on the conversation's own page (outside the inbox): read for them too.
    const colleagueMarked = colleaguePage.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith(`/api/conversation/${uuid}/read`));
    await colleaguePage.goto(`/conversation/${uuid}`);
    await expect(colleaguePage.getByTestId('message').last()).toContainText('One more thing about invoices');
    expect((await colleagueMarked).status()).toBe(200);
    await colleaguePage.goto('/conversation/list');
    await expect(rowOf(colleaguePage, uuid)).toBeVisible();
    await expect(rowOf(colleaguePage, uuid)).not.toHaveAttribute('data-unread', 'true');
    await deviceContext.close();
    await colleagueContext.close();
  });

  test('Follow-up is disabled with the reason outside a working phase', async ({ page }) => {
    await signInAsAdmin(page);
    const typeId = await demoTypeId(page.request);
    const { uuid } = await (await page.request.post('/api/conversation/new', { data: { conversationTypeId: typeId } })).json();
    const id = (await (await page.request.get(`/api/conversation/${uuid}`)).json()).id;
    await page.request.patch(`/api/conversation/${id}`, { data: { phase: 3 } });
    await page.goto(`/conversation/${uuid}`);
    await expect(page.getByRole('button', { name: 'Follow-up' })).toBeDisabled();
    await expect(page.getByTestId('follow-up-reason')).toContainText('only in a working phase');
    await page.request.patch(`/api/conversation/${id}`, { data: { phase: 1 } });
    await expect(page.getByRole('button', { name: 'Follow-up' })).toBeEnabled();
  });
});

/** The visitor's chat from the start page to the closing notice; the message box stays in view. */
async function visitorFlow(page: Page, name: string) {
  await page.goto('/');
  await expect(page.getByRole('combobox', { name: 'Conversation type' })).toHaveValue(DEMO_TYPE);
  await page.getByRole('button', { name: 'Start new conversation' }).click();
  await expect(page).toHaveURL(/\/conversation\/[0-9a-f-]{36}$/);
  const uuid = page.url().split('/').pop()!;
  await expect(messages(page).first()).toContainText('Maya from Brightdesk');
  // No phase codes or internal labels for visitors.
  await expect(page.getByTestId('phase-badge')).toHaveCount(0);
  await expect(page.getByText(/PHASE|Phase -?\d/)).toHaveCount(0);
  await expect(page.getByText('Demo agent (offline)', { exact: true })).toHaveCount(0);

  const box = page.getByRole('textbox', { name: 'Message' });
  for (let turn = 1; turn <= 6; turn++) {
    if (await page.getByTestId('closing-notice').isVisible()) break;
    await expect(box).toBeInViewport();
    const count = await messages(page).count();
    await box.fill(`Visitor answer number ${turn}, with a few more words to fill the bubble on a small screen`);
    await box.press('Enter');
    await expect(messages(page).nth(count)).toContainText(`Visitor answer number ${turn}`);
    // The box stays in view after the send, and the agent's typing state shows until its reply.
    await expect(box.or(page.getByTestId('closing-notice'))).toBeInViewport();
    if (turn === 1) {
      // The typing line shows from the send's refresh until the reply (the demo type waits 2 s before its
      // turn); on a loaded machine the refresh can come back after the reply, which then replaces it.
      const typing = page.getByTestId('agent-typing');
      await expect(typing.or(messages(page).nth(count + 1))).toBeVisible();
      if (await typing.isVisible()) await shot(page, `visitor-chat-typing-${name}`);
    }
    // The agent answers, or (its last turn) ends the playbook: then the closing notice takes the box's place.
    await expect(messages(page).nth(count + 1).or(page.getByTestId('closing-notice')).first()).toBeVisible({ timeout: AGENT_TIMEOUT });
    await expect(page.getByTestId('agent-typing')).toHaveCount(0, { timeout: AGENT_TIMEOUT });
  }
  const notice = page.getByTestId('closing-notice');
  await expect(notice).toBeVisible({ timeout: AGENT_TIMEOUT });
  await expect(notice).toContainText('This conversation has ended');
  await expect(notice.getByRole('link', { name: 'Start a new conversation' })).toBeVisible();
  await expect(notice).toBeInViewport();
  await shot(page, `visitor-chat-ended-${name}`);
  // The server refuses further messages into the ended chat with the same sentence.
  const refused = await page.request.post(`/api/conversation/${uuid}/written-message`, { data: { message: 'Anyone there?' } });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).code).toBe('CONVERSATION_ENDED');
}

test.describe('visitor chat', () => {
  test.describe('at 1366×800', () => {
    test.use({ viewport: DESKTOP });
    test('to the closing notice with the message box in view', async ({ page }) => {
      await visitorFlow(page, 'desktop');
    });
  });
  test.describe('at 390×844', () => {
    test.use({ viewport: PHONE });
    test('to the closing notice with the message box in view', async ({ page }) => {
      await visitorFlow(page, 'phone');
    });
  });

  test('the start page lists only public types; a private type cannot be started by a visitor', async ({ page, browser }) => {
    await signInAsAdmin(page);
    const res = await page.request.post('/api/admin/conversation-type/create-edit', {
      data: { title: `Private playbook ${unique()}`, rolePrompt: 'Internal only', errorPrompt: 'Sorry', isPublic: false },
    });
    const privateId = (await res.json()).conversationType.id as number;
    const dup = await page.request.post(`/api/admin/conversation-type/${await demoTypeId(page.request)}/duplicate`);
    const dupId = (await dup.json()).conversationType.id as number;

    const visitor = await browser.newContext();
    const v = await visitor.newPage();
    await v.goto('/');
    await v.getByRole('combobox', { name: 'Conversation type' }).click();
    await expect(v.getByRole('option', { name: DEMO_TYPE, exact: true })).toBeVisible();
    await expect(v.getByRole('option', { name: /Private playbook|\[D\]/ })).toHaveCount(0);
    expect((await v.request.post('/api/conversation/new', { data: { conversationTypeId: privateId } })).status()).toBe(404);
    expect((await v.request.post('/api/conversation/new', { data: { conversationTypeId: dupId } })).status()).toBe(404);
    await visitor.close();

    // The flag is editable in the type form.
    await page.goto(`/admin/conversation-type/${dupId}/edit`);
    const publicSwitch = page.getByRole('switch', { name: 'Public' });
    await expect(publicSwitch).not.toBeChecked();
  });
});

test.describe('inbox at 390×844', () => {
  test('the list, then the conversation; filters fold into a drawer', async ({ page }) => {
    // Logged in at desktop width (the phone header folds the user menu into its drawer), then a phone.
    await page.setViewportSize(DESKTOP);
    await signInAsAdmin(page);
    await page.setViewportSize(PHONE);
    const typeId = await demoTypeId(page.request);
    const account = await createInstagramAccount(page.request, typeId);
    const uuid = await prospectWrites(page.request, account, `9${unique()}`, 'Hello from my phone');
    await page.goto('/conversation/list');
    await expect(rowOf(page, uuid)).toContainText('Instagram');
    await expect(page.getByLabel('Prospect UUID')).toHaveCount(0);
    await shot(page, 'inbox-list-phone');

    await page.getByRole('button', { name: /^Filters/ }).click();
    const drawer = page.getByRole('dialog', { name: 'Filters and order' });
    await expect(drawer.getByLabel('Prospect UUID')).toBeVisible();
    await shot(page, 'inbox-filters-phone');
    await page.keyboard.press('Escape');
    await expect(drawer).toHaveCount(0);

    await rowOf(page, uuid).click();
    await expect(page.getByTestId('message').first()).toContainText('Hello from my phone');
    await expect(page.getByTestId('inbox-row')).toHaveCount(0);
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeInViewport();
    await expect(page.getByTestId('message').nth(1)).toHaveAttribute('data-role', 'AGENT', { timeout: AGENT_TIMEOUT });
    await shot(page, 'inbox-conversation-phone');
    await page.getByRole('button', { name: 'All conversations' }).click();
    await expect(rowOf(page, uuid)).toBeVisible();
  });
});
