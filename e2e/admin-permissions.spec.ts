import { type APIRequestContext, expect, test } from '@playwright/test';
import { confirmModal, E2E_ADMIN, signInAsAdmin, registerUser, uniqueEmail, signInAs } from './support/fixtures.ts';

async function createAccount(request: APIRequestContext, pageName: string): Promise<number> {
  expect((await request.post('/api/user/login', { data: E2E_ADMIN })).status()).toBe(200);
  const res = await request.post('/api/admin/messaging-accounts/create-edit', {
    data: { type: 'INSTAGRAM', accessToken: `tok-${Date.now()}`, pageId: `ig-${Date.now()}`, pageName },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).messagingAccount.id;
}

test.describe('admin user messaging account permissions', () => {
  test('grant, see on the profile, revoke; a granted user removes the account from their accounts but may not delete it', async ({ page, request, browser, playwright, baseURL }) => {
    const adminRequest = await playwright.request.newContext({ baseURL });
    const stamp = Date.now();
    const firstName = `Granted page ${stamp}`;
    const secondName = `Profile delete page ${stamp}`;
    const firstId = await createAccount(adminRequest, firstName);
    const secondId = await createAccount(adminRequest, secondName);
    // Registering signs a context in as the new user, so it uses its own context.
    const user = await registerUser(request, uniqueEmail('rep'));

    await signInAsAdmin(page);
    await page.goto('/admin/user-messaging-accounts/list');
    await expect(page.getByRole('heading', { name: 'User messaging account permissions' })).toBeVisible();
    await page.getByRole('link', { name: 'Grant access' }).click();
    await expect(page).toHaveURL(/\/admin\/user-messaging-accounts\/create$/);

    // Validation (spec §5): a valid email and a chosen account.
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Email is required')).toBeVisible();
    await expect(page.getByText('Choose a messaging account')).toBeVisible();
    await page.getByLabel('User Email').fill('not-an-email');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Enter a valid email address')).toBeVisible();

    const pick = async (name: string) => {
      await page.getByRole('combobox', { name: 'Messaging Account' }).click();
      await page.getByRole('option', { name: new RegExp(name) }).click();
    };
    // An unknown email shows the server's error.
    await page.getByLabel('User Email').fill('nobody-here@example.com');
    await pick(firstName);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('No user with email nobody-here@example.com')).toBeVisible();

    await page.getByLabel('User Email').fill(user.email);
    await page.screenshot({ path: '/tmp/permissions-create.png', fullPage: true });
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText(`${user.email} now has access to ${firstName}.`)).toBeVisible();
    await expect(page).toHaveURL(/\/admin\/user-messaging-accounts\/list$/);
    const row = page.getByRole('row').filter({ hasText: user.email });
    await expect(row.getByRole('link', { name: user.email })).toHaveAttribute('href', `/user/${user.email}`);
    await expect(row.getByRole('link', { name: firstName })).toHaveAttribute('href', `/admin/messaging-accounts/${firstId}/edit`);
    await page.screenshot({ path: '/tmp/permissions-list.png', fullPage: true });

    // The admin list of accounts shows the granted user.
    await page.goto('/admin/messaging-accounts/list');
    await expect(page.getByRole('row').filter({ hasText: firstName })).toContainText(user.email);

    // The NORMAL user sees the granted account on their profile.
    const userContext = await browser.newContext();
    const userPage = await userContext.newPage();
    await signInAs(userPage, user.email, user.password);
    await userPage.goto(`/user/${user.email}`);
    await expect(userPage.getByRole('row').filter({ hasText: firstName })).toBeVisible();

    // Revoke.
    await page.goto('/admin/user-messaging-accounts/list');
    await page.getByRole('row').filter({ hasText: user.email }).getByRole('button', { name: 'Delete' }).click();
    await confirmModal(page, `Remove the access of ${user.email} to ${firstName}?`);
    await expect(page.getByText('User Messaging Account deleted successfully')).toBeVisible();
    await expect(page.getByRole('row').filter({ hasText: user.email })).toHaveCount(0);
    await userPage.reload();
    await expect(userPage.getByText('No messaging accounts are connected to this user yet.')).toBeVisible();

    // Grant the second account. The user did not connect it (the admin created it), so the profile offers
    // 'Remove from my accounts' (their own grant) instead of Delete, and the server refuses the delete.
    const grant = await adminRequest.post('/api/admin/user-messaging-accounts/create', { data: { userEmail: user.email, messagingAccountId: secondId } });
    expect(grant.status()).toBe(201);
    await userPage.reload();
    const accountRow = userPage.getByRole('row').filter({ hasText: secondName });
    await expect(accountRow.getByRole('button', { name: 'Delete' })).toHaveCount(0);
    expect((await userPage.request.delete(`/api/messaging-accounts/${secondId}`)).status()).toBe(403);
    await accountRow.getByRole('button', { name: 'Remove from my accounts' }).click();
    const dialog = userPage.getByRole('dialog');
    await expect(dialog).toContainText('The account and its conversations stay');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await expect(userPage.getByText('Account removed from your accounts')).toBeVisible();
    await expect(userPage.getByRole('row').filter({ hasText: secondName })).toHaveCount(0);
    const remaining = await (await adminRequest.get('/api/admin/messaging-accounts/list')).json();
    expect(remaining.map((a: { id: number }) => a.id)).toEqual(expect.arrayContaining([firstId, secondId]));

    // The first account was not granted to them any more: the server refuses its delete.
    const refused = await userPage.request.delete(`/api/messaging-accounts/${firstId}`);
    expect(refused.status()).toBe(403);
    await userContext.close();
    await adminRequest.dispose();
  });
});
