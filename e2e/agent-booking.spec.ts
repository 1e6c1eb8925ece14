import { expect, test } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';

const DEMO_TYPE = 'Demo: Sales assistant';
/** The agent answers after its debounce window and a job poll; the live stream brings it in at once. */
const AGENT_TIMEOUT = 20_000;

// Issue 22: with no API key, a visitor on "/" asks to book and the offline demo agent books the first free
// slot of the demo calendar, confirms it with date, time and time zone, and the meeting shows on the conversation.
test('a visitor books a meeting with the offline demo agent and sees it on the conversation', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox', { name: 'Conversation type' })).toHaveValue(DEMO_TYPE);
  await page.getByRole('button', { name: 'Start new conversation' }).click();
  await expect(page).toHaveURL(/\/conversation\/[0-9a-f-]{36}$/);

  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Sounds great, can I book a demo call?');
  await box.press('Enter');
  const reply = page.locator('[data-testid="message"][data-role="AGENT"]').nth(1);
  await expect(reply).toContainText(/You're booked for \w+day, \d{1,2} \w+ \d{4} at (10|14):00 \(UTC\)/, { timeout: AGENT_TIMEOUT });
  const actions = page.getByTestId('agent-actions');
  await expect(actions.getByText('Meeting booked')).toBeVisible();
  // Tool calls are for admins only: the visitor sees the meeting, not the calls.
  await expect(page.getByTestId('tool-call')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/agent-booking.png', fullPage: true });
});

// Issue 22: the same booking seen by the team: the tool calls under the thread and, once the demo conversation
// has ended, the outcome analysis "booked" on the admin's conversation view.
test('the team sees the demo agent’s booking, its tool calls and the outcome on the conversation view', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Start new conversation' }).click();
  await expect(page).toHaveURL(/\/conversation\/[0-9a-f-]{36}$/);
  const url = page.url();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Please book a call with me');
  await box.press('Enter');
  await expect(page.getByTestId('agent-actions').getByText('Meeting booked')).toBeVisible({ timeout: AGENT_TIMEOUT });
  // Each message moves the demo agent one phase on, until the conversation ends.
  for (let turn = 0; turn < 6 && !(await page.getByTestId('closing-notice').isVisible()); turn++) {
    const agentCount = await page.locator('[data-testid="message"][data-role="AGENT"]').count();
    await page.getByRole('textbox', { name: 'Message' }).fill(`Thanks, noted ${turn + 1}`);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.locator('[data-testid="message"][data-role="AGENT"]').nth(agentCount).or(page.getByTestId('closing-notice')).first()).toBeVisible({ timeout: AGENT_TIMEOUT });
  }
  await expect(page.getByTestId('closing-notice')).toBeVisible({ timeout: AGENT_TIMEOUT });

  await signInAsAdmin(page);
  await page.goto(url);
  const actions = page.getByTestId('agent-actions');
  await expect(actions.getByText('Meeting booked')).toBeVisible();
  await expect(actions.getByTestId('tool-call').filter({ hasText: 'book_meeting' })).toBeVisible();
  await expect(actions.getByTestId('tool-call').filter({ hasText: 'check_availability' })).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('outcome-analysis')).toContainText('Outcome: booked', { timeout: 2000 });
  }).toPass({ timeout: AGENT_TIMEOUT });
  await page.screenshot({ path: 'test-results/agent-booking-admin.png', fullPage: true });
});
