import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { confirmModal, E2E_ADMIN, signInAsAdmin } from './support/fixtures.ts';

const DELETE_CONFIRMATION = 'Are you sure you want to delete this account? This will delete all conversations related to this account';

/** Checks a toast and closes it, so a later identical notice is really a new one. */
async function expectToast(page: Page, text: string) {
  const toast = page.getByRole('alert').filter({ hasText: text });
  await expect(toast).toBeVisible();
  await toast.getByRole('button').click();
  await expect(toast).toHaveCount(0);
}

/** Signs the request context in as the E2E admin (cookies stay on the context). */
async function adminApi(request: APIRequestContext) {
  const res = await request.post('/api/user/login', { data: E2E_ADMIN });
  expect(res.status()).toBe(200);
}

async function createConversationType(request: APIRequestContext, title: string): Promise<number> {
  const res = await request.post('/api/admin/conversation-type/create-edit', {
    data: { title, rolePrompt: 'You sell dental cleanings.', errorPrompt: 'Apologise and offer a call.' },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
  return (await res.json()).conversationType.id;
}

test.describe('admin messaging accounts', () => {
  test('create, edit, configure and delete an account; the token never reaches the page', async ({ page, request }) => {
    await adminApi(request);
    const stamp = Date.now();
    const typeTitle = `Dental leads ${stamp}`;
    const typeId = await createConversationType(request, typeTitle);
    const token = `EAAG-e2e-token-${stamp}-Zk42`;
    const pageName = `Smile Studio ${stamp} with a long page name for the heading`;

    await signInAsAdmin(page);
    await page.goto('/admin/messaging-accounts/list');
    await expect(page.getByRole('heading', { name: 'Messaging accounts' })).toBeVisible();
    await page.getByRole('link', { name: 'Create account' }).click();
    await expect(page).toHaveURL(/\/admin\/messaging-accounts\/create$/);

    // Required fields (spec §5) and the default type (spec §9).
    await expect(page.getByRole('combobox', { name: 'Type', exact: true })).toHaveValue('Instagram');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Access token is required')).toBeVisible();
    await expect(page.getByText('Page id is required')).toBeVisible();
    await expect(page.getByText('Page name is required')).toBeVisible();

    await page.getByLabel('Access token').fill(token);
    await page.getByLabel('Page id').fill(`ig-${stamp}`);
    await page.getByLabel('Page name').fill(pageName);
    await page.getByLabel('Expiration date').fill('2031-05-17');
    await page.getByRole('combobox', { name: 'Conversation type' }).click();
    await page.getByRole('option', { name: new RegExp(typeTitle) }).click();
    await page.screenshot({ path: '/tmp/accounts-create.png', fullPage: true });
    await page.getByRole('button', { name: 'Save' }).click();
    await expectToast(page, 'Account created or updated successfully');
    await expect(page).toHaveURL(/\/admin\/messaging-accounts\/list$/);

    const row = page.getByRole('row').filter({ hasText: pageName });
    // The type by its channel's name (issue 12 item 5), not the stored enum value.
    await expect(row.getByTestId('channel')).toHaveText('Instagram');
    await expect(row).toContainText(`ig-${stamp}`);
    await expect(row).toContainText(typeTitle);
    await expect(row).toContainText(new Date('2031-05-17T00:00:00Z').toLocaleDateString(undefined, { timeZone: 'UTC' }));
    await expect(row.getByRole('link', { name: 'Conversations' })).toHaveAttribute('href', `/conversation/list?conversationType=${typeId}`);
    await page.screenshot({ path: '/tmp/accounts-list.png', fullPage: true });
    expect(await page.content()).not.toContain(token);

    // Edit: the token is not shown, only that one is set; leaving it empty keeps it.
    await row.getByRole('link', { name: 'Edit' }).click();
    await expect(page.getByText('A token is set (••••Zk42)')).toBeVisible();
    await expect(page.getByLabel('Access token')).toHaveValue('');
    await expect(page.getByLabel('Page name')).toHaveValue(pageName);
    await expect(page.getByLabel('Expiration date')).toHaveValue('2031-05-17');
    await page.screenshot({ path: '/tmp/accounts-edit.png', fullPage: true });
    const editedName = `${pageName} edited`;
    await page.getByLabel('Page name').fill(editedName);
    await page.getByRole('combobox', { name: 'Type', exact: true }).click();
    await page.getByRole('option', { name: 'Facebook Page (Messenger)' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await expectToast(page, 'Account created or updated successfully');
    const edited = page.getByRole('row').filter({ hasText: editedName });
    await expect(edited.getByTestId('channel')).toHaveText('Messenger');
    const list = await (await request.get('/api/admin/messaging-accounts/list')).json();
    const stored = list.find((a: { pageName: string }) => a.pageName === editedName);
    expect(stored.accessTokenHint).toBe('••••Zk42');

    // Config: invalid JSON is refused in the browser; valid JSON is saved.
    await edited.getByRole('link', { name: 'Config' }).click();
    const heading = page.getByRole('heading', { level: 1 });
    await expect(heading).toHaveText(/…$/);
    expect((await heading.textContent())!.length).toBe(50);
    const editor = page.getByRole('textbox', { name: 'JSON configuration' });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText('{"greeting": ');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Invalid JSON' })).toBeVisible();
    await page.screenshot({ path: '/tmp/accounts-config-invalid.png', fullPage: true });
    await expect(page.getByText('Configuration saved successfully.')).toHaveCount(0);
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText('{"greeting": "Hi there", "replyDelay": 3}');
    await page.getByRole('button', { name: 'Save' }).click();
    await expectToast(page, 'Configuration saved successfully.');
    await expect(page.getByRole('alert').filter({ hasText: 'Invalid JSON' })).toHaveCount(0);
    const view = await (await request.get(`/api/admin/messaging-accounts/${stored.id}`)).json();
    expect(JSON.parse(view.config)).toEqual({ greeting: 'Hi there', replyDelay: 3 });

    // Delete with the exact confirmation text.
    await page.goto('/admin/messaging-accounts/list');
    await page.getByRole('row').filter({ hasText: editedName }).getByRole('button', { name: 'Delete' }).click();
    await confirmModal(page, DELETE_CONFIRMATION);
    await expectToast(page, 'Account deleted successfully');
    await expect(page.getByRole('row').filter({ hasText: editedName })).toHaveCount(0);
  });

  test('cancel leaves the form; an account without a conversation type has no Conversations link', async ({ page, request }) => {
    await adminApi(request);
    const pageName = `No type ${Date.now()}`;
    // A page id of its own: (type, page id) is unique, so a retry on the same server must not reuse one.
    const pageId = `+1555${String(Date.now()).slice(-7)}`;
    const res = await request.post('/api/admin/messaging-accounts/create-edit', {
      data: { type: 'TWILIO', accessToken: 'twilio-token', pageId, pageName, conversationTypeId: null },
    });
    expect(res.status()).toBe(200);
    await signInAsAdmin(page);
    await page.goto('/admin/messaging-accounts/create');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page).toHaveURL(/\/admin\/messaging-accounts\/list$/);
    const row = page.getByRole('row').filter({ hasText: pageName });
    await expect(row.getByRole('button', { name: 'Conversations' })).toBeDisabled();
    await expect(row.getByRole('link', { name: 'Conversations' })).toHaveCount(0);
    // Cancelling the confirmation keeps the account.
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(row).toBeVisible();
  });
});
