import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, type Browser, expect, type Page, test } from '@playwright/test';
import { E2E_USER_PASSWORD, loginAs, loginAsAdmin, registerUser, uniqueEmail, demoTypeId, uniqueDigits } from './support/fixtures.ts';
import { DESKTOP, PHONE } from './support/viewport.ts';

/**
 * Issue 24, the team's workspace: two teammates in two browser contexts — search by phone, the contact's
 * phone number and history, assign (the assignee is notified), a private note with an @mention (never shown
 * as a message), resolve; the Team page: invite by link, set a password through it, deactivate (the session
 * ends at once). Axe on the new screens.
 */


const unique = () => uniqueDigits(9);

/** An SMS gateway account (ADMIN session of `request`) and a prospect's simulated SMS on it. */
async function smsProspect(request: APIRequestContext, phone: string, text: string) {
  const deviceId = `device-${unique()}`;
  const created = await request.post('/api/admin/messaging-accounts/create-edit', {
    data: { type: 'SMS_GATEWAY', pageId: deviceId, pageName: `SMS line ${deviceId}`, accessToken: `token-${deviceId}`, conversationTypeId: await demoTypeId(request) },
  });
  expect(created.status(), await created.text()).toBeLessThan(300);
  const accountId = (await created.json()).messagingAccount.id as number;
  const config = await request.post(`/api/admin/messaging-accounts/${accountId}/config`, {
    data: JSON.stringify({ baseUrl: 'http://127.0.0.1:9/3rdparty/v1', signingKey: 'e2e-signing-key' }),
    headers: { 'content-type': 'application/json' },
  });
  expect(config.status(), await config.text()).toBe(200);
  const id = unique();
  const sent = await request.post('/api/admin/webhook-simulation/sms-gateway', {
    headers: { origin: `http://localhost:${process.env.E2E_PORT ?? 3100}` },
    data: { deviceId, event: 'sms:received', id, payload: { message: text, phoneNumber: phone, messageId: `sim-${id}`, receivedAt: new Date().toISOString() } },
  });
  expect(sent.status(), await sent.text()).toBeLessThan(300);
  let uuid = '';
  let conversationId = 0;
  await expect
    .poll(async () => {
      const found = await request.get('/api/admin/conversation/by-prospect', { params: { messagingAccountId: accountId, externalId: phone } });
      if (found.status() !== 200) return '';
      ({ uuid, id: conversationId } = await found.json());
      return uuid;
    })
    .not.toBe('');
  return { accountId, uuid, conversationId };
}

async function teammate(browser: Browser, accountId: number, adminRequest: APIRequestContext) {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const user = await registerUser(page.request, uniqueEmail('teammate'));
  const grant = await adminRequest.post('/api/admin/user-messaging-accounts/create', { data: { userEmail: user.email, messagingAccountId: accountId } });
  expect(grant.status(), await grant.text()).toBe(201);
  await loginAs(page, user.email, user.password);
  return { context, page, email: user.email };
}

async function expectNoSeriousAxe(page: Page) {
  await page.waitForTimeout(250); // Mantine's transitions settle; axe must see the final colours.
  const result = await new AxeBuilder({ page }).analyze();
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
}

const rowOf = (page: Page, uuid: string) => page.locator(`[data-testid="inbox-row"][data-uuid="${uuid}"]`);

test.describe('workspace at 1366×800', () => {
  test.use({ viewport: DESKTOP });

  test('search by phone, contact phone, assign and notify, a private note with a mention, resolve — two teammates', async ({ page, browser }) => {
    test.setTimeout(120_000);
    await loginAsAdmin(page);
    const phone = `+1415${unique().slice(-7)}`;
    const sms = await smsProspect(page.request, phone, 'Can I get a quote for solar panels?');
    const bob = await teammate(browser, sms.accountId, page.request);

    // The admin finds the prospect by the digits of their number; the row is named by the number.
    await page.goto('/conversation/list');
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill(phone.slice(-7, -3) + ' ' + phone.slice(-3));
    await expect(page).toHaveURL(/q=/);
    await expect(page.getByTestId('inbox-row')).toHaveCount(1);
    await expect(rowOf(page, sms.uuid).getByTestId('row-name')).toHaveText(phone);
    await rowOf(page, sms.uuid).click();
    await expect(page.getByTestId('conversation-heading')).toHaveText(phone);
    await expect(page.getByTestId('contact-phone')).toHaveText(phone);
    await expect(page.getByTestId('contact-conversation')).toHaveCount(1);

    // Assign to Bob, and write a note that mentions him.
    await page.getByRole('combobox', { name: 'Assignee' }).click();
    await page.getByRole('option', { name: bob.email }).click();
    await expect(page.getByRole('combobox', { name: 'Assignee' })).toHaveValue(bob.email);
    const note = `@${bob.email} please call them about the quote`;
    await page.getByLabel('Private note').fill(note);
    await page.getByRole('button', { name: 'Add note' }).click();
    await expect(page.getByTestId('note')).toContainText('please call them about the quote');
    await expectNoSeriousAxe(page);

    // Bob is told (bell), finds it under Mine, sees the note; the note is no message of the conversation.
    await bob.page.goto('/conversation/list');
    await expect(bob.page.getByRole('button', { name: /Notifications \(2 new\)/ })).toBeVisible();
    await expect(bob.page).toHaveTitle(/^\(\d+\) Conversations/);
    await bob.page.getByRole('button', { name: /Notifications/ }).click();
    await expect(bob.page.getByTestId('notification')).toHaveCount(2);
    await expect(bob.page.getByTestId('notification').first()).toContainText('mentioned you in a note');
    await bob.page.keyboard.press('Escape');
    await bob.page.getByRole('button', { name: 'Mine' }).click();
    await expect(bob.page).toHaveURL(/assignee=me/);
    await rowOf(bob.page, sms.uuid).click();
    await expect(bob.page.getByTestId('note')).toContainText('please call them');
    await expect(bob.page.getByTestId('message').filter({ hasText: 'please call them' })).toHaveCount(0);
    const detail = await (await bob.page.request.get(`/api/conversation/${sms.uuid}`)).json();
    expect(JSON.stringify(detail.messages)).not.toContain('please call them');

    // Bob replies (his name on the message and in the admin's preview) and resolves it.
    await bob.page.getByRole('textbox', { name: 'Message' }).fill('Happy to help, calling you in 5 minutes');
    await bob.page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(bob.page.getByTestId('message').filter({ hasText: 'calling you' })).toContainText(bob.email);
    await bob.page.getByRole('button', { name: 'Resolve' }).click();
    await expect(bob.page.getByTestId('state-badge')).toHaveText('Resolved');

    // Live in the admin's inbox: the assignee, the real author and the state.
    await expect(rowOf(page, sms.uuid).getByTestId('row-preview')).toHaveText(`${bob.email.split('@')[0]}: Happy to help, calling you in 5 minutes`);
    await expect(rowOf(page, sms.uuid).getByTestId('row-resolved')).toBeVisible();
    await expect(rowOf(page, sms.uuid).getByTestId('row-assignee')).toHaveText(bob.email.split('@')[0]);
    await bob.context.close();
  });

  test('Team: invite by link, the invitee sets a password through it, deactivate ends the session at once', async ({ page, browser }) => {
    test.setTimeout(90_000);
    await loginAsAdmin(page);
    await page.goto('/admin/hello');
    await page.getByRole('link', { name: 'Team' }).click();
    await expect(page).toHaveURL(/\/admin\/users$/);
    await expect(page.getByRole('heading', { name: 'Team', level: 1 })).toBeVisible();
    const email = uniqueEmail('invited');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = await page.getByRole('textbox', { name: 'Invitation link' }).inputValue();
    expect(link).toContain('/set-password?');
    await expect(page.getByRole('row', { name: email })).toContainText('Invited');
    await expectNoSeriousAxe(page);

    const context = await browser.newContext({ viewport: PHONE });
    const invitee = await context.newPage();
    const url = new URL(link);
    await invitee.goto(url.pathname + url.search);
    await expect(invitee.getByLabel('Email')).toHaveValue(email);
    await invitee.getByLabel('Password', { exact: true }).fill(E2E_USER_PASSWORD);
    await invitee.getByLabel('Confirm password').fill(E2E_USER_PASSWORD);
    await invitee.getByRole('button', { name: 'Set password' }).click();
    await expect(invitee).toHaveURL(/\/user\/onboarding$/);
    expect((await invitee.request.post('/api/user/get-session')).status()).toBe(200);

    await page.reload();
    await expect(page.getByRole('row', { name: email })).toContainText('Active');
    await page.getByRole('button', { name: `Deactivate ${email}` }).click();
    await expect(page.getByRole('row', { name: email })).toContainText('Deactivated');
    expect((await invitee.request.post('/api/user/get-session')).status()).toBe(401);
    await invitee.goto('/conversation/list');
    await expect(invitee).toHaveURL(/\/login/);
    await context.close();
  });
});

test.describe('workspace on a phone', () => {
  test.use({ viewport: DESKTOP });

  test('views and search fit, and the open conversation offers the team controls', async ({ page }) => {
    await loginAsAdmin(page);
    await page.setViewportSize(PHONE);
    const phone = `+1415${unique().slice(-7)}`;
    const sms = await smsProspect(page.request, phone, 'Do you work weekends?');
    await page.goto(`/conversation/list?q=${encodeURIComponent(phone)}`);
    await expect(page.getByRole('button', { name: 'Needs a person' })).toBeVisible();
    await rowOf(page, sms.uuid).click();
    await expect(page.getByTestId('workspace-controls')).toBeVisible();
    await page.getByRole('button', { name: 'Snooze' }).click();
    await page.getByRole('menuitem', { name: 'For an hour' }).click();
    await expect(page.getByTestId('snoozed-badge')).toBeVisible();
    await expectNoSeriousAxe(page);
  });
});
