import { expect, test } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';

/** The agent answers after its debounce window and a job poll; the live stream brings it in at once. */
const AGENT_TIMEOUT = 20_000;

// Issue 22 item 4: a type declares lead fields; the offline demo agent records the email address the prospect
// writes, and a person corrects the fields in the inbox's prospect panel.
test('the demo agent records a lead field and a person corrects the fields in the inbox panel', async ({ page }) => {
  await signInAsAdmin(page);
  const types = await (await page.request.get('/api/conversation-type/listt')).json();
  const demoId = types.find((t: { title: string }) => t.title === 'Demo: Sales assistant').id as number;
  const dup = await page.request.post(`/api/admin/conversation-type/${demoId}/duplicate`);
  const typeId = (await dup.json()).conversationType.id as number;
  const config = {
    replyDebounceSeconds: 0,
    leadFields: [
      { key: 'email', label: 'Email', type: 'email', required: true },
      { key: 'company', label: 'Company', type: 'text' },
      { key: 'timeline', label: 'Timeline', type: 'enum', options: ['this month', 'later'] },
    ],
  };
  const saved = await page.request.post(`/api/admin/conversation-type/${typeId}/config`, { data: config });
  expect(saved.status(), await saved.text()).toBe(200);
  const started = await page.request.post('/api/conversation/new', { data: { conversationTypeId: typeId } });
  const uuid = (await started.json()).uuid as string;

  await page.goto(`/conversation/${uuid}`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Hi, you can reach me at ada@example.com');
  await box.press('Enter');
  await expect(page.locator('[data-testid="message"][data-role="AGENT"]').last()).toContainText('You wrote', { timeout: AGENT_TIMEOUT });

  await page.goto('/conversation/list');
  await page.locator(`[data-testid="inbox-row"][data-uuid="${uuid}"]`).click();
  const panel = page.getByTestId('prospect-panel').getByTestId('lead-fields').first();
  await expect(panel.getByTestId('lead-field-email')).toHaveText('ada@example.com');
  await expect(panel.getByTestId('lead-field-company')).toHaveText('—');
  await panel.getByRole('button', { name: 'Edit' }).click();
  await panel.getByLabel('Company').fill('Acme Ltd');
  await panel.getByRole('combobox', { name: 'Timeline' }).click();
  await page.getByRole('option', { name: 'later' }).click();
  await panel.getByRole('button', { name: 'Save lead fields' }).click();
  await expect(panel.getByTestId('lead-field-company')).toHaveText('Acme Ltd');
  await expect(panel.getByTestId('lead-field-timeline')).toHaveText('later');
  await page.screenshot({ path: 'test-results/lead-fields.png', fullPage: true });
});
