import { expect, test } from '@playwright/test';

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
