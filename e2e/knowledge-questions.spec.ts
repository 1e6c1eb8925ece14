import { expect, test } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';

const AGENT_TIMEOUT = 20_000;

// Issue 21 items 3–5 with the offline demo agent: the test box shows the agent's answer, a visitor's question
// the knowledge does not answer gets "I'll find out", shows in the unanswered questions, and becomes an FAQ entry.
test('the test box answers as the agent; an unanswered question from "/" becomes an FAQ entry', async ({ page }) => {
  test.setTimeout(90_000);
  await signInAsAdmin(page);
  const suffix = `${Date.now()}`;
  const collection = (await (await page.request.post('/api/admin/knowledge', { data: { name: `Shop facts ${suffix}` } })).json()).id;
  await page.request.post(`/api/admin/knowledge/${collection}/sources`, {
    data: { type: 'faq', question: 'How much does installation cost?', answer: 'Installation costs 480 euros.' },
  });
  const title = `Knowledge shop ${suffix}`;
  const saved = await page.request.post('/api/admin/conversation-type/create-edit', {
    data: { title, rolePrompt: 'You sell wall chargers.', errorPrompt: 'Sorry, something went wrong.', knowledgeCollectionIds: [collection] },
  });
  expect(saved.ok()).toBe(true);
  const typeId = (await saved.json()).conversationType.id;
  for (let index = 0; index < 5; index++) {
    const phase = await page.request.post('/api/admin/conversation-phase/create-edit', {
      data: { conversationType: { id: typeId }, index, prompt: `Help the customer, step ${index}.`, transitionPrompt: 'The customer answered.' },
    });
    expect(phase.ok(), await phase.text()).toBe(true);
  }

  await page.goto(`/admin/knowledge/${collection}`);
  const sources = page.getByRole('table', { name: 'Knowledge sources' });
  await expect(sources.getByRole('row').filter({ hasText: 'How much does installation cost?' })).toContainText('Ready', { timeout: 20_000 });
  const box = page.getByRole('form', { name: 'Test the knowledge base' });
  await box.getByRole('textbox', { name: 'Question' }).fill('What does installation cost?');
  await box.getByRole('combobox', { name: 'Agent of type' }).click();
  await page.getByRole('option', { name: title }).click();
  await box.getByRole('button', { name: 'Ask the agent' }).click();
  const answer = page.getByLabel("Agent's answer");
  await expect(answer).toContainText('Installation costs 480 euros.');
  await expect(answer).toContainText('Demo agent (offline)');
  await expect(page.getByLabel('Retrieved passages')).toContainText('480 euros');

  await page.goto(`/?conversationType=${typeId}`);
  await expect(page.getByRole('combobox', { name: 'Conversation type' })).toHaveValue(title);
  await page.getByRole('button', { name: 'Start new conversation' }).click();
  await expect(page).toHaveURL(/\/conversation\/[0-9a-f-]{36}$/);
  const message = page.getByRole('textbox', { name: 'Message' });
  const question = `Do you have a showroom in Oslo ${suffix}?`;
  await message.fill(question);
  await message.press('Enter');
  await expect(page.locator('[data-testid="message"][data-role="AGENT"]').last()).toContainText("I'll find out", { timeout: AGENT_TIMEOUT });

  await page.goto('/admin/knowledge');
  const card = page.getByLabel(`Question: ${question}`);
  await expect(card).toContainText('asked 1×');
  await expect(card.getByRole('link', { name: /conversation 1/ })).toBeVisible();
  await card.getByRole('button', { name: 'Add as FAQ' }).click();
  const form = card.getByRole('form', { name: 'Add as FAQ entry' });
  await form.getByRole('combobox', { name: 'Collection' }).click();
  await page.getByRole('option', { name: `Shop facts ${suffix}` }).click();
  await form.getByRole('textbox', { name: 'Answer' }).fill('Yes, our Oslo showroom is open on weekdays.');
  await page.screenshot({ path: '/tmp/knowledge-questions.png', fullPage: true });
  await form.getByRole('button', { name: 'Save FAQ entry' }).click();
  await expect(card).toHaveCount(0);
  await page.goto(`/admin/knowledge/${collection}`);
  await expect(sources.getByRole('row').filter({ hasText: question })).toContainText('Ready', { timeout: 20_000 });
  // Off the public start page again, so other specs' first screen is unchanged.
  await page.request.post('/api/admin/conversation-type/create-edit', {
    data: { id: typeId, title, rolePrompt: 'You sell wall chargers.', errorPrompt: 'Sorry, something went wrong.', isPublic: false },
  });
});
