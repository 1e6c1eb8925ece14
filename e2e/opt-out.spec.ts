import { type APIRequestContext, expect, test } from '@playwright/test';
import { signInAsAdmin, uniqueDigits } from './support/fixtures.ts';

/** Issue 23: a prospect who writes STOP is marked in the inbox and on the conversation; a person clears it with a note. */

const unique = () => uniqueDigits();

async function instagramAccount(request: APIRequestContext) {
  const types = await (await request.get('/api/conversation-type/listt')).json();
  const typeId = types.find((t: { title: string }) => t.title === 'Demo: Sales assistant').id;
  const pageId = `1785${unique()}`;
  const res = await request.post('/api/admin/messaging-accounts/create-edit', {
    data: { type: 'INSTAGRAM', pageId, pageName: `Opt-out line ${pageId}`, accessToken: `token-${pageId}`, conversationTypeId: typeId },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
  return { id: (await res.json()).messagingAccount.id as number, pageId };
}

async function prospectWrites(request: APIRequestContext, account: { id: number; pageId: string }, sender: string, text: string) {
  const ms = Date.now();
  const res = await request.post('/api/meta-api/webhook', {
    headers: { origin: `http://localhost:${process.env.E2E_PORT ?? 3100}` },
    data: { object: 'instagram', entry: [{ id: account.pageId, time: ms, messaging: [{ sender: { id: sender }, recipient: { id: account.pageId }, timestamp: ms, message: { mid: `m_e2e_${unique()}`, text } }] }] },
  });
  expect(res.status(), await res.text()).toBe(200);
}

test('STOP marks the prospect in the inbox and on the conversation; clearing needs a note', async ({ page }) => {
  await signInAsAdmin(page);
  const account = await instagramAccount(page.request);
  const sender = `8${unique()}`;
  await prospectWrites(page.request, account, sender, 'STOP');
  let uuid = '';
  await expect
    .poll(async () => {
      const found = await page.request.get('/api/admin/conversation/by-prospect', { params: { messagingAccountId: account.id, externalId: sender } });
      uuid = found.status() === 200 ? (await found.json()).uuid : '';
      return uuid;
    })
    .not.toBe('');

  await page.goto('/conversation/list');
  const row = page.locator(`[data-testid="inbox-row"][data-uuid="${uuid}"]`);
  await expect(row.getByTestId('opted-out-mark')).toHaveText('Opted out');
  await row.click();
  const notice = page.getByTestId('do-not-contact');
  await expect(notice).toContainText('Opted out on instagram (keyword "STOP")');
  await page.screenshot({ path: '/tmp/opt-out.png' });
  await notice.getByRole('button', { name: 'Clear opt-out…' }).click();
  await expect(notice.getByRole('button', { name: 'Clear with this note' })).toBeDisabled();
  await notice.getByLabel('Why may they be contacted again?').fill('They asked by phone to hear from us again.');
  await notice.getByRole('button', { name: 'Clear with this note' }).click();
  await expect(page.getByTestId('do-not-contact')).toHaveCount(0);
  await expect(row.getByTestId('opted-out-mark')).toHaveCount(0);
});

test('the Opt-outs audit screen lists an opt-out as active, then who cleared it with which note', async ({ page }) => {
  await signInAsAdmin(page);
  const account = await instagramAccount(page.request);
  const sender = `9${unique()}`;
  await prospectWrites(page.request, account, sender, 'STOP');
  const address = `instagram:${account.id}:${sender}`;
  await page.goto('/admin/hello');
  await page.getByRole('list', { name: 'Admin actions' }).getByRole('link', { name: 'Opt-outs' }).click();
  await expect(page).toHaveURL(/\/admin\/opt-outs$/);
  await page.getByLabel('Address').fill(address);
  const table = page.getByRole('table', { name: 'Opt-outs' });
  const row = table.getByRole('row').filter({ hasText: address });
  await expect(row).toContainText('keyword "STOP"');
  await expect(row.getByTestId('opt-out-active')).toHaveText('Active');

  const found = await page.request.get('/api/admin/conversation/by-prospect', { params: { messagingAccountId: account.id, externalId: sender } });
  const conversation = await page.request.get(`/api/conversation/${(await found.json()).uuid}`);
  const cleared = await page.request.post(`/api/conversation/${(await conversation.json()).id}/do-not-contact/clear`, {
    data: { note: 'Asked by email to hear from us again.' },
  });
  expect(cleared.status(), await cleared.text()).toBe(200);
  await page.reload();
  await page.getByLabel('Address').fill(address);
  await expect(row.getByTestId('opt-out-cleared')).toContainText('Asked by email to hear from us again.');
  await page.getByLabel('Only active opt-outs').check();
  await expect(page.getByText('No opt-out matches.')).toBeVisible();
});
