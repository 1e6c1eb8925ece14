import { expect, type Page, test } from '@playwright/test';
import { E2E_USER_PASSWORD, signInAsAdmin, uniqueEmail, openFromAdminHello } from './support/fixtures.ts';
import { DESKTOP, PHONE } from './support/viewport.ts';
import { expectNoSeriousAxe, smsProspect, teammate, unique } from './support/workspace.ts';

/**
 * Issue 24, the team's workspace: two teammates in two browser contexts — search by phone, the contact's
 * phone number and history, assign (the assignee is notified), a private note with an @mention (never shown
 * as a message), resolve; the Team page: invite by link, set a password through it, deactivate (the session
 * ends at once). Axe on the new screens.
 */


const rowOf = (page: Page, uuid: string) => page.locator(`[data-testid="inbox-row"][data-uuid="${uuid}"]`);

test.describe('workspace at 1366×800', () => {
  test.use({ viewport: DESKTOP });

  test('search by phone, contact phone, assign and notify, a private note with a mention, resolve — two teammates', async ({ page, browser }) => {
    test.setTimeout(120_000);
    await signInAsAdmin(page);
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
    await signInAsAdmin(page);
    await openFromAdminHello(page, 'Team');
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
    await signInAsAdmin(page);
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
