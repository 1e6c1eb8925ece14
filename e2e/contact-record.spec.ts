import { expect, test } from '@playwright/test';
import { demoTypeId, signInAsAdmin } from './support/fixtures.ts';
import { DESKTOP, PHONE } from './support/viewport.ts';
import { expectNoSeriousAxe, smsProspect, teammate, unique } from './support/workspace.ts';

/**
 * Issue 24, the contact record: a team member edits a contact (name, email, phone checked with its country
 * code) and merges the same person's two numbers into one contact from the prospect panel; the email and
 * phone a web-chat visitor types show in the panel; an ADMIN grants and revokes a member's messaging
 * accounts from the member's row on the Team page.
 */

const panel = (page: import('@playwright/test').Page) => page.getByTestId('prospect-panel');

test.describe('contact record at 1366×800', () => {
  test.use({ viewport: DESKTOP });

  test('a team member edits the contact and merges the same person on two lines into it', async ({ page, browser }) => {
    test.setTimeout(120_000);
    await signInAsAdmin(page);
    const first = `+1415${unique().slice(-7)}`;
    const second = `+1628${unique().slice(-7)}`;
    const a = await smsProspect(page.request, first, 'Hi, quote for solar please');
    const b = await smsProspect(page.request, second, 'Texting from my work phone');
    const bob = await teammate(browser, a.accountId, page.request);
    const grant = await page.request.post('/api/admin/user-messaging-accounts/create', { data: { userEmail: bob.email, messagingAccountId: b.accountId } });
    expect(grant.status(), await grant.text()).toBe(201);
    // The second conversation gets its contact when first read.
    expect((await bob.page.request.get(`/api/conversation/${b.uuid}`)).status()).toBe(200);

    await bob.page.goto(`/conversation/list?open=${a.uuid}`);
    await expect(panel(bob.page).getByTestId('contact-phone')).toHaveText(first);
    await panel(bob.page).getByRole('button', { name: 'Edit contact' }).click();
    const form = bob.page.getByRole('form', { name: 'Edit contact' });
    await form.getByLabel('Name').fill('Dana Fox');
    await form.getByLabel('Email').fill('dana@example.com');
    await form.getByLabel('Phone').fill('415 555');
    await form.getByRole('button', { name: 'Save contact' }).click();
    // The refusal stays on the form, in words.
    await expect(form.getByRole('alert')).toContainText('country code');
    await form.getByLabel('Phone').fill('+1 (213) 373-4253');
    await form.getByRole('button', { name: 'Save contact' }).click();
    await expect(form).toHaveCount(0);
    await expect(panel(bob.page).getByTestId('contact-name')).toHaveText('Dana Fox');
    await expect(panel(bob.page).getByTestId('contact-email')).toHaveText('dana@example.com');
    await expect(panel(bob.page).getByTestId('contact-phone')).toHaveText('+12133734253');
    await expect(panel(bob.page).getByTestId('contact-conversation')).toHaveCount(1);

    await panel(bob.page).getByRole('button', { name: 'Merge with…' }).click();
    await panel(bob.page).getByLabel('Find the other contact').fill(second.slice(-7));
    const candidate = panel(bob.page).getByTestId('contact-candidate');
    await expect(candidate).toHaveCount(1);
    await expect(candidate).toContainText(second);
    await expectNoSeriousAxe(bob.page);
    await candidate.getByRole('button', { name: /^Merge / }).click();
    const dialog = bob.page.getByRole('dialog');
    await expect(dialog).toContainText('Their conversations and handles move here');
    await dialog.getByRole('button', { name: 'Merge', exact: true }).click();
    await expect(panel(bob.page).getByTestId('contact-conversation')).toHaveCount(2);
    await expect(panel(bob.page).getByTestId('contact-name')).toHaveText('Dana Fox');

    // The other conversation now shows the same person, with both conversations.
    await page.goto(`/conversation/list?open=${b.uuid}`);
    await expect(panel(page).getByTestId('contact-name')).toHaveText('Dana Fox');
    await expect(panel(page).getByTestId('contact-conversation')).toHaveCount(2);
    await bob.context.close();
  });

  test('the email and phone a web-chat visitor types show in the prospect panel', async ({ page, browser }) => {
    await signInAsAdmin(page);
    const started = await page.request.post('/api/conversation/new', { data: { conversationTypeId: await demoTypeId(page.request) } });
    const { uuid } = await started.json();
    const visitorContext = await browser.newContext({ viewport: PHONE });
    const visitor = await visitorContext.newPage();
    await visitor.goto(`/conversation/${uuid}`);
    const box = visitor.getByRole('textbox', { name: 'Message' });
    await box.fill('I am Lee, write me at lee.web@example.com or call +44 20 7946 0958');
    await box.press('Enter');
    await expect(box).toHaveValue('');

    await page.goto(`/conversation/list?open=${uuid}`);
    await expect(panel(page).getByTestId('contact-email')).toHaveText('lee.web@example.com');
    await expect(panel(page).getByTestId('contact-phone')).toHaveText('+442079460958');
    // The visitor never sees the team's contact record.
    await expect(visitor.getByText('lee.web@example.com', { exact: true })).toHaveCount(0);
    await visitorContext.close();
  });

  test('an ADMIN grants and revokes a member’s messaging accounts from their row on the Team page', async ({ page, browser }) => {
    await signInAsAdmin(page);
    const sms = await smsProspect(page.request, `+1415${unique().slice(-7)}`, 'Hello from a new line');
    const bob = await teammate(browser, sms.accountId, page.request);
    const revoke = await page.request.get('/api/admin/user-messaging-accounts/list');
    const grantId = (await revoke.json()).find((g: { user: { email: string } }) => g.user.email === bob.email).id;
    expect((await page.request.delete(`/api/admin/user-messaging-accounts/${grantId}`)).status()).toBe(200);
    expect((await bob.page.request.get(`/api/conversation/${sms.uuid}`)).status()).toBe(404);

    await page.goto('/admin/users');
    const row = page.getByRole('row', { name: bob.email });
    await row.getByRole('button', { name: `Messaging accounts of ${bob.email}` }).click();
    const dialog = page.getByRole('dialog', { name: `Messaging accounts of ${bob.email}` });
    const account = dialog.getByRole('checkbox', { name: new RegExp(`#${sms.accountId}\\)`) });
    await expect(account).not.toBeChecked();
    await account.click(); // checked once the server granted it
    await expect(account).toBeChecked();
    await expectNoSeriousAxe(page);
    await expect.poll(async () => (await bob.page.request.get(`/api/conversation/${sms.uuid}`)).status()).toBe(200);
    await bob.page.goto(`/conversation/list?open=${sms.uuid}`);
    await expect(panel(bob.page)).toBeVisible();

    await account.click();
    await expect(account).not.toBeChecked();
    await expect.poll(async () => (await bob.page.request.get(`/api/conversation/${sms.uuid}`)).status()).toBe(404);
    await page.keyboard.press('Escape');
    await expect(row.getByRole('button', { name: `Messaging accounts of ${bob.email}` })).toHaveText('0 accounts');
    await bob.context.close();
  });
});

test.describe('contact record on a phone', () => {
  test.use({ viewport: DESKTOP });

  test('edit the contact from "About the prospect"', async ({ page }) => {
    await signInAsAdmin(page);
    await page.setViewportSize(PHONE);
    const phone = `+1415${unique().slice(-7)}`;
    const sms = await smsProspect(page.request, phone, 'Is the offer still on?');
    await page.goto(`/conversation/list?open=${sms.uuid}`);
    await page.getByTestId('prospect-details').getByText('About the prospect').click();
    const about = page.getByTestId('prospect-details');
    await expect(about.getByTestId('contact-phone')).toHaveText(phone);
    await about.getByRole('button', { name: 'Edit contact' }).click();
    const form = page.getByRole('form', { name: 'Edit contact' });
    await form.getByLabel('Phone').fill('0044');
    await form.getByRole('button', { name: 'Save contact' }).click();
    await expect(form.getByRole('alert')).toContainText('country code');
    await form.getByLabel('Phone').fill(phone);
    await form.getByLabel('Email').fill('kim@example.com');
    await form.getByLabel('Name').fill('Kim Lee');
    await form.getByRole('button', { name: 'Save contact' }).click();
    await expect(about.getByTestId('contact-email')).toHaveText('kim@example.com');
    await expect(about.getByTestId('contact-name')).toHaveText('Kim Lee');
    await expectNoSeriousAxe(page);
  });
});
