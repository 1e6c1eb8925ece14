import { expect, test } from '@playwright/test';
import { E2E_FAKE_OPENAI_PORT } from '../playwright.config.ts';
import { confirmModal, loginAs, loginAsAdmin, registerUser } from './support/fixtures.ts';

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

test('log in with Facebook, connect Instagram from the profile, delete it, delete the user', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('button', { name: 'Continue with Facebook' }).click();
  await expect(page.getByText('Login successful!')).toBeVisible();
  // The token left the address bar as soon as it was read.
  expect(page.url()).not.toContain('access_token');
  await expect(page).toHaveURL(`/user/${FACEBOOK_EMAIL}`);
  await expect(page.getByTestId('profile-email')).toHaveText(FACEBOOK_EMAIL);
  await expect(page.getByRole('button', { name: 'User menu' })).toHaveText(FACEBOOK_EMAIL);

  await page.getByRole('button', { name: 'Connect Instagram' }).click();
  await expect(page.getByText(`Connected to ${INSTAGRAM_NAME} successfully!`)).toBeVisible();
  await expect(page).toHaveURL(`/user/${FACEBOOK_EMAIL}`);
  const row = page.getByRole('row').filter({ hasText: 'INSTAGRAM' });
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

test('the consent page and the Instagram link target lead into the connect flow', async ({ page, request }) => {
  const user = await registerUser(request);
  await page.goto('/user/meta-invite');
  await expect(page.getByText('Connecting an account allows it to')).toBeVisible();
  await expect(page.getByRole('link', { name: 'log in' })).toBeVisible();

  await loginAs(page, user.email, user.password);
  await page.goto('/user/meta-invite');
  for (const name of ['Connect Instagram', 'Connect Facebook Page', 'Connect WhatsApp']) {
    await expect(page.getByRole('button', { name })).toBeVisible();
  }
  await page.getByRole('button', { name: 'Connect WhatsApp' }).click();
  await expect(page.getByText('Connected to Fake Bakery WhatsApp successfully!')).toBeVisible();

  await page.goto('/user/ig-redirect');
  await expect(page.getByText(`Connected to ${INSTAGRAM_NAME} successfully!`)).toBeVisible();
  await expect(page).toHaveURL(`/user/${user.email}`);
  await expect(page.getByRole('row').filter({ hasText: 'WHATSAPP' })).toContainText('Fake Bakery WhatsApp');
  await expect(page.getByRole('row').filter({ hasText: 'INSTAGRAM' }).getByTestId('page-name')).toHaveText(INSTAGRAM_NAME);
});

test('every error text of the connect and login returns (spec §8.3)', async ({ page, request }) => {
  const user = await registerUser(request);
  await loginAs(page, user.email, user.password);

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

  await loginAsAdmin(page);
  await page.goto('/user/nobody-here@example.com');
  await expect(page.getByText('User not found', { exact: true })).toBeVisible();
});
