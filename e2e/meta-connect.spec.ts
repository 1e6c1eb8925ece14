import { type APIRequestContext, type Page, expect, request as playwrightRequest, test } from '@playwright/test';
import { E2E_FAKE_OPENAI_PORT } from '../playwright.config.ts';
import { E2E_ADMIN, confirmModal, loginAs, signInAsAdmin, registerUser, signInAs } from './support/fixtures.ts';

/**
 * Facebook login and account connect against the loopback Meta OAuth fake (E2E_FAKE_META_OAUTH on the
 * second server): the fake's dialogs consent at once and send the browser back with a token or a code,
 * so every round trip below is the real one, state check included.
 */
const FAKE_META_PORT = E2E_FAKE_OPENAI_PORT;
test.use({ baseURL: `http://localhost:${FAKE_META_PORT}` });

/** The identities the fake hands out (apps/server/src/test/fakes/meta-oauth-fake.ts). */
const FACEBOOK_EMAIL = 'fiona.fake@example.com';
const INSTAGRAM_NAME = 'fake_bakery';

/** A connected account's row on the profile, by the channel its type is shown as (FACEBOOK is 'Messenger'). */
const accountRow = (page: Page, channel: string) =>
  page.getByRole('row').filter({ has: page.getByTestId('channel').getByText(channel, { exact: true }) });

test('log in with Facebook, set a password through the link, log in with it, connect Instagram, delete it, delete the user', async ({ page, browser }) => {
  test.slow();
  await page.goto('/login');
  await page.getByRole('button', { name: 'Continue with Facebook' }).click();
  await expect(page.getByText('Login successful!')).toBeVisible();
  // The token left the address bar as soon as it was read.
  expect(page.url()).not.toContain('access_token');
  // A new account has no password: the next page is set-password, opened with the account's one-time link
  // (whose token also leaves the address bar).
  await expect(page).toHaveURL(/\/set-password\?email=/);
  await expect(page).not.toHaveURL(/token=/);
  await expect(page.getByLabel('Email')).toHaveValue(FACEBOOK_EMAIL);
  await page.getByLabel('Password', { exact: true }).fill('fiona-bakes-bread-7');
  await page.getByLabel('Confirm password').fill('fiona-bakes-bread-7');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page).toHaveURL(/\/user\/onboarding$/);

  // The password logs in from another browser.
  const elsewhere = await browser.newPage();
  await loginAs(elsewhere, FACEBOOK_EMAIL, 'fiona-bakes-bread-7');
  await elsewhere.close();

  await page.goto(`/user/${FACEBOOK_EMAIL}`);
  await expect(page.getByTestId('profile-email')).toHaveText(FACEBOOK_EMAIL);
  await expect(page.getByRole('button', { name: 'User menu' })).toHaveText(FACEBOOK_EMAIL);

  await page.getByRole('button', { name: 'Connect Instagram' }).click();
  await expect(page.getByText(`Connected to ${INSTAGRAM_NAME} successfully!`)).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('connect-page.png') });
  await expect(page).toHaveURL(`/user/${FACEBOOK_EMAIL}`);
  const row = accountRow(page, 'Instagram');
  await expect(row.getByTestId('page-name')).toHaveText(INSTAGRAM_NAME);
  await expect(row).toContainText('Expires');
  await page.screenshot({ path: test.info().outputPath('profile-connected.png'), fullPage: true });

  await row.getByRole('button', { name: 'Delete' }).click();
  await confirmModal(page, 'removes all conversations associated');
  await expect(page.getByText('Account deleted successfully')).toBeVisible();
  await expect(page.getByText('No messaging accounts are connected to this user yet.')).toBeVisible();

  await page.getByRole('button', { name: 'Delete User' }).click();
  await confirmModal(page, `Delete the user ${FACEBOOK_EMAIL}?`);
  await expect(page.getByText('User deleted')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Login' })).toBeVisible();
});

test('Facebook login into an existing password account asks for that password once, then links it', async ({ page, request }) => {
  test.slow();
  // The account exists with a password (registered, not created by Facebook login).
  const owner = await registerUser(request, FACEBOOK_EMAIL);
  await page.goto('/login');
  await page.getByRole('button', { name: 'Continue with Facebook' }).click();
  await expect(page.getByTestId('meta-login-result')).toContainText('Enter its password once to link your Facebook login');
  // Not signed in yet.
  await expect(page.getByRole('link', { name: 'Login' })).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill('not-the-password');
  await page.getByRole('button', { name: 'Link Facebook and log in' }).click();
  await expect(page.getByText('Invalid email or password.')).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill(owner.password);
  await page.getByRole('button', { name: 'Link Facebook and log in' }).click();
  await expect(page.getByText('Login successful!')).toBeVisible();
  await expect(page).toHaveURL(`/user/${FACEBOOK_EMAIL}`);

  // Linked: the next Facebook login signs in at once.
  await page.context().clearCookies();
  await page.goto('/login');
  await page.getByRole('button', { name: 'Continue with Facebook' }).click();
  await expect(page.getByText('Login successful!')).toBeVisible();
  await expect(page).toHaveURL(`/user/${FACEBOOK_EMAIL}`);
  await page.getByRole('main').getByRole('button', { name: 'Delete User' }).click();
  await confirmModal(page, `Delete the user ${FACEBOOK_EMAIL}?`);
  await expect(page.getByText('User deleted')).toBeVisible();
});

test('the consent page and the Instagram link target lead into the connect flow', async ({ page, request }) => {
  const user = await registerUser(request);
  await page.goto('/user/meta-invite');
  await expect(page.getByText('Connecting an account allows it to')).toBeVisible();
  await expect(page.getByRole('link', { name: 'log in' })).toBeVisible();

  await signInAs(page, user.email, user.password);
  await page.goto('/user/meta-invite');
  for (const name of ['Connect Instagram', 'Connect Facebook Page', 'Connect WhatsApp']) {
    await expect(page.getByRole('button', { name })).toBeVisible();
  }
  await page.getByRole('button', { name: 'Connect WhatsApp' }).click();
  await expect(page.getByText('Connected to Fake Bakery WhatsApp successfully!')).toBeVisible();

  await page.goto('/user/ig-redirect');
  await expect(page.getByText(`Connected to ${INSTAGRAM_NAME} successfully!`)).toBeVisible();
  await expect(page).toHaveURL(`/user/${user.email}`);
  await expect(accountRow(page, 'WhatsApp')).toContainText('Fake Bakery WhatsApp');
  await expect(accountRow(page, 'Instagram').getByTestId('page-name')).toHaveText(INSTAGRAM_NAME);
});

test('every error text of the connect and login returns (spec §8.3)', async ({ page, request }) => {
  const user = await registerUser(request);
  await signInAs(page, user.email, user.password);

  await page.goto('/user/connect-meta-page?type=FACEBOOK');
  await expect(page.getByText('Error: Code not found')).toBeVisible();

  // A code and state this browser never started: the server refuses, the page names the type.
  await page.goto('/user/connect-meta-page?type=WHATSAPP&code=AQforged&state=forged.state');
  await expect(page.getByText('Error connecting WHATSAPP account')).toBeVisible();
  // Without a type the return is for INSTAGRAM (spec §2.2 default).
  await page.goto('/user/connect-meta-page?code=AQforged');
  await expect(page.getByText('Error connecting INSTAGRAM account')).toBeVisible();

  await page.goto('/user/meta-login-register-redirect');
  await expect(page.getByText('Error: No authorization access_token received')).toBeVisible();

  // Someone else's profile is not shown to a NORMAL user, and says no more than that.
  await page.goto(`/user/${E2E_ADMIN.email}`);
  await expect(page.getByText('User not found', { exact: true })).toBeVisible();

  await signInAsAdmin(page);
  await page.goto('/user/nobody-here@example.com');
  await expect(page.getByText('User not found', { exact: true })).toBeVisible();
});

/** An API client logged in as the E2E admin (its own cookie jar, apart from the page's). */
async function adminApi(): Promise<APIRequestContext> {
  const api = await playwrightRequest.newContext({ baseURL: `http://localhost:${FAKE_META_PORT}` });
  expect((await api.post('/api/user/login', { data: E2E_ADMIN })).status()).toBe(200);
  return api;
}

/** Ends the page's session (the next navigation's session check then finds none). */
async function logout(page: Page) {
  expect((await page.request.post('/api/user/logout')).status()).toBe(200);
}

test('a colleague granted an account can remove it from their accounts, not delete it (issue 13 item 3)', async ({ page, request }) => {
  const owner = await registerUser(request);
  const colleague = await registerUser(request);
  await signInAs(page, owner.email, owner.password);
  await page.goto(`/user/${owner.email}`);
  await page.getByRole('button', { name: 'Connect Facebook Page' }).click();
  await expect(page.getByText('Connected to Fake Bakery Page successfully!')).toBeVisible();
  await expect(page).toHaveURL(`/user/${owner.email}`);
  const ownRow = accountRow(page, 'Messenger');
  await expect(ownRow.getByRole('button', { name: 'Delete' })).toBeVisible();

  const admin = await adminApi();
  const listed = await (await admin.get(`/api/user/${owner.email}/messaging-accounts`)).json();
  const accountId: number = listed.messagingAccounts[0].messagingAccountId;
  expect((await admin.post('/api/admin/user-messaging-accounts/create', { data: { userEmail: colleague.email, messagingAccountId: accountId } })).status()).toBe(201);

  // The token has run out: the profile asks for a reconnect, which any user of the account can do.
  const view = await (await admin.get(`/api/admin/messaging-accounts/${accountId}`)).json();
  const expire = await admin.post('/api/admin/messaging-accounts/create-edit', {
    data: { id: accountId, type: view.type, pageId: view.pageId, pageName: view.pageName, expirationDate: '2020-01-01' },
  });
  expect(expire.status()).toBe(200);

  await logout(page);
  await signInAs(page, colleague.email, colleague.password);
  await page.goto(`/user/${colleague.email}`);
  const row = accountRow(page, 'Messenger');
  await expect(row.getByTestId('page-name')).toHaveText('Fake Bakery Page');
  await expect(row.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await expect(row).toContainText('Reconnect needed');
  await page.screenshot({ path: test.info().outputPath('profile-granted.png'), fullPage: true });
  await row.getByRole('button', { name: 'Reconnect' }).click();
  await expect(page.getByText('Connected to Fake Bakery Page successfully!')).toBeVisible();
  await expect(page).toHaveURL(`/user/${colleague.email}`);
  await expect(row).toContainText('No expiry');
  await expect(row).not.toContainText('Reconnect needed');
  // The server holds the same line: the account is not the colleague's to delete.
  expect((await page.request.delete(`/api/messaging-accounts/${accountId}`)).status()).toBe(403);

  await row.getByRole('button', { name: 'Remove from my accounts' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('The account and its conversations stay');
  await dialog.getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByText('Account removed from your accounts')).toBeVisible();
  await expect(page.getByText('No messaging accounts are connected to this user yet.')).toBeVisible();
  const kept = await (await admin.get(`/api/user/${owner.email}/messaging-accounts`)).json();
  expect(kept.messagingAccounts.map((a: { messagingAccountId: number }) => a.messagingAccountId)).toEqual([accountId]);
  await admin.dispose();
});

test('the accounts list highlights tokens expiring within 7 days and accounts that need a reconnect', async ({ page }) => {
  const admin = await adminApi();
  const soon = new Date(Date.now() + 3 * 86_400_000).toISOString();
  for (const [pageName, expirationDate] of [['Expiring Soon Shop', soon], ['Expired Shop', '2020-01-01']]) {
    const res = await admin.post('/api/admin/messaging-accounts/create-edit', {
      data: { type: 'INSTAGRAM', accessToken: 'IGQ-e2e-token', pageId: `e2e-${pageName.length}-${Date.now()}`, pageName, expirationDate },
    });
    expect(res.status()).toBe(200);
  }
  await admin.dispose();
  await signInAsAdmin(page);
  await page.goto('/admin/messaging-accounts/list');
  await expect(page.getByRole('row').filter({ hasText: 'Expiring Soon Shop' })).toContainText('expires soon');
  await expect(page.getByRole('row').filter({ hasText: 'Expired Shop' })).toContainText('reconnect needed');
  await page.screenshot({ path: test.info().outputPath('accounts-list.png'), fullPage: true });
});
