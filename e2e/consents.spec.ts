import { expect, test } from '@playwright/test';
import { demoTypeId, signInAsAdmin, uniqueDigits, openFromAdminHello } from './support/fixtures.ts';

/**
 * Issue 23: a WhatsApp opt-in recorded on the conversation (withdrawn, then recorded again, each with a note)
 * shows on the consent audit tab, and opt-ins gathered elsewhere are imported there from a CSV.
 */
test('record a WhatsApp opt-in on the conversation, see it on the consent screen, import more from a CSV', async ({ page }) => {
  await signInAsAdmin(page);
  const request = page.request;
  const pageId = `1066${uniqueDigits()}`;
  const created = await request.post('/api/admin/messaging-accounts/create-edit', {
    data: { type: 'WHATSAPP', pageId, pageName: `Opt-in line ${pageId}`, accessToken: `token-${pageId}`, conversationTypeId: await demoTypeId(request) },
  });
  expect(created.status(), await created.text()).toBeLessThan(300);
  const accountId = (await created.json()).messagingAccount.id as number;
  // A Spanish mobile number (valid for libphonenumber), unique per run.
  const from = `34699${uniqueDigits(6)}`;
  const ms = Date.now();
  const inbound = await request.post('/api/meta-api/webhook', {
    headers: { origin: `http://localhost:${process.env.E2E_PORT ?? 3100}` },
    data: {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA-E2E',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001111', phone_number_id: pageId },
                contacts: [{ profile: { name: 'Ana' }, wa_id: from }],
                messages: [{ from, id: `wamid.e2e${uniqueDigits()}`, timestamp: String(Math.floor(ms / 1000)), type: 'text', text: { body: 'Hello there' } }],
              },
            },
          ],
        },
      ],
    },
  });
  expect(inbound.status(), await inbound.text()).toBe(200);
  let uuid = '';
  await expect
    .poll(async () => {
      const found = await request.get('/api/admin/conversation/by-prospect', { params: { messagingAccountId: accountId, externalId: from } });
      uuid = found.status() === 200 ? (await found.json()).uuid : '';
      return uuid;
    })
    .not.toBe('');

  await page.goto(`/conversation/${uuid}`);
  const optIn = page.getByTestId('whatsapp-opt-in');
  const state = optIn.getByTestId('whatsapp-opt-in-state');
  await expect(state).toHaveText('Opted in');
  await expect(optIn).toContainText('the prospect wrote first');

  await optIn.getByRole('button', { name: 'Withdraw opt-in…' }).click();
  await optIn.getByLabel('Why is the opt-in withdrawn?').fill('Asked on the phone not to get WhatsApp offers.');
  await optIn.getByRole('button', { name: 'Withdraw with this note' }).click();
  await expect(state).toHaveText('Withdrawn');

  await optIn.getByRole('button', { name: 'Record opt-in…' }).click();
  await expect(optIn.getByRole('button', { name: 'Record with this note' })).toBeDisabled();
  await optIn.getByLabel('Where and how did they opt in?').fill('Agreed again on the call of today.');
  await optIn.getByRole('button', { name: 'Record with this note' }).click();
  await expect(state).toHaveText('Opted in');
  await expect(optIn).toContainText('by a person');
  await page.screenshot({ path: '/tmp/whatsapp-opt-in.png' });

  await openFromAdminHello(page, 'Opt-outs and consents');
  await page.getByRole('tab', { name: 'WhatsApp opt-ins' }).click();
  await expect(page).toHaveURL(/\/admin\/opt-outs\?tab=consents$/);
  await page.getByLabel('Address').fill(from);
  const rows = page.getByRole('table', { name: 'WhatsApp opt-ins' }).getByRole('row').filter({ hasText: `+${from}` });
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('Given');
  await expect(rows.nth(0)).toContainText('Agreed again on the call of today.');
  await expect(rows.nth(1)).toContainText('Withdrawn');
  await expect(rows.nth(2)).toContainText('prospect wrote first');

  // Opt-ins gathered elsewhere: one good row, one without a country code.
  const other = `+34698${uniqueDigits(6)}`;
  await page.locator('input[type="file"]').setInputFiles({ name: 'fair.csv', mimeType: 'text/csv', buffer: Buffer.from(`phone,note\n${other},Fair list\n6125550123,\n`) });
  const result = page.getByTestId('consent-import-result');
  await expect(result).toContainText('Imported 1 opt-in');
  await expect(result).toContainText('Row 2:');
  await page.getByLabel('Address').fill(other);
  await expect(page.getByRole('table', { name: 'WhatsApp opt-ins' }).getByRole('row').filter({ hasText: other })).toContainText('Fair list');
  await page.screenshot({ path: '/tmp/consent-audit.png' });
});
