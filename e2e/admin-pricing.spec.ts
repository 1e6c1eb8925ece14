import { type Page, expect, test } from '@playwright/test';
import { signInAsAdmin, registerUser, signInAs } from './support/fixtures.ts';

const PERIODS = [
  ['1 Minute', 1],
  ['1 Hour (60)', 60],
  ['1 Day (1440)', 1440],
  ['160 Hours (9600)', 9600],
] as const;
const ROWS = [
  ['Total GPT Cost', 'totalGptCost'],
  ['Total Azure TTS Cost', 'totalAzureCost'],
  ['Twilio Voice Minutes', 'voiceMinutes'],
  ['Twilio Speech Recognition', 'speechRecognition'],
  ['Twilio Recordings (Monthly)', 'twilioRecordings'],
  ['Total Cost', 'totalCosts'],
] as const;

type Costs = Record<(typeof ROWS)[number][1], number>;

async function oneMinuteCosts(page: Page, query: Record<string, number>): Promise<Costs> {
  const res = await page.request.get('/api/admin/pricing/conversation', { params: query });
  expect(res.status()).toBe(200);
  return res.json();
}

/** Every cell of the four tables equals the 1-minute value × the period's minutes, to 6 decimals. */
async function expectTables(page: Page, costs: Costs) {
  for (const [title, minutes] of PERIODS) {
    const table = page.getByRole('table', { name: title });
    for (const [label, key] of ROWS) {
      await expect(table.getByRole('row', { name: label })).toContainText(`$${(costs[key] * minutes).toLocaleString('en-US', { minimumFractionDigits: 6, maximumFractionDigits: 6 })}`);
    }
  }
}

test.describe('admin pricing calculator', () => {
  test('shows the defaults, four scaled tables whose total is the sum, and validates required inputs', async ({ page }) => {
    await signInAsAdmin(page);
    await page.goto('/admin/pricing/conversation');
    await expect(page.getByLabel('System Prompt Length')).toHaveValue('1774');
    await expect(page.getByLabel('User Prompt Length')).toHaveValue('4134');
    await expect(page.getByLabel('Messages Length')).toHaveValue('288');
    await expect(page.getByLabel('Total messages in a minute')).toHaveValue('5');

    const costs = await oneMinuteCosts(page, { systemPromptLength: 1774, userPromptLength: 4134, messagesLength: 288, messagesPerMinute: 5 });
    const sum = costs.totalGptCost + costs.totalAzureCost + costs.voiceMinutes + costs.speechRecognition + costs.twilioRecordings;
    expect(costs.totalCosts).toBeCloseTo(sum, 12);
    await expectTables(page, costs);

    // The displayed 1-minute total is the sum of the displayed rows (within rounding).
    const minute = page.getByRole('table', { name: '1 Minute' });
    const shown: number[] = [];
    for (const [label] of ROWS) {
      const text = await minute.getByRole('row', { name: label }).getByRole('cell').textContent();
      expect(text).toMatch(/^\$\d{1,3}(,\d{3})*\.\d{6}$/);
      shown.push(Number(text!.slice(1)));
    }
    expect(shown[5]).toBeCloseTo(shown.slice(0, 5).reduce((a, b) => a + b, 0), 5);

    // Required numbers (spec §5)
    await page.getByLabel('Messages Length').fill('');
    await expect(page.getByText('Messages Length is required')).toBeVisible();
    await page.getByLabel('Messages Length').fill('288');
    await expect(page.getByText('Messages Length is required')).toHaveCount(0);
  });

  test('applies a picked prompt length to the system or user length and recalculates', async ({ page }) => {
    await signInAsAdmin(page);
    const marker = `Pricing role ${Date.now()}`;
    const rolePrompt = `${marker} `.padEnd(2500, 'r');
    const created = await page.request.post('/api/admin/conversation-type/create-edit', {
      data: { title: `Pricing type ${Date.now()}`, rolePrompt, errorPrompt: 'Sorry.' },
    });
    const typeId = (await created.json()).conversationType.id;
    const phasePrompt = `Phase goal ${Date.now()} `.padEnd(900, 'p');
    await page.request.post('/api/admin/conversation-phase/create-edit', {
      data: { index: 0, prompt: phasePrompt, transitionPrompt: 'next', conversationType: { id: typeId } },
    });

    await page.goto('/admin/pricing/conversation');
    const picker = page.getByRole('combobox', { name: 'Conversation type prompt' });
    await picker.click();
    await picker.fill(marker);
    // Labels are cut to 70 characters (spec §9).
    const roleOption = page.getByRole('option', { name: /Role prompt: Pricing role/ });
    await expect(roleOption).toHaveText(`Role prompt: ${rolePrompt.slice(0, 69)}…`);
    await roleOption.click();
    await expect(page.getByText('Selected prompt: 2500 characters')).toBeVisible();
    await page.getByRole('button', { name: 'Apply to System Prompt Length' }).click();
    await expect(page.getByLabel('System Prompt Length')).toHaveValue('2500');
    await expectTables(page, await oneMinuteCosts(page, { systemPromptLength: 2500, userPromptLength: 4134, messagesLength: 288, messagesPerMinute: 5 }));

    await picker.click();
    await picker.fill('Phase goal');
    const phaseOption = page.getByRole('option', { name: `Phase 0: ${phasePrompt.slice(0, 69)}…` });
    await phaseOption.click();
    await page.getByRole('button', { name: 'Apply to User Prompt Length' }).click();
    await expect(page.getByLabel('User Prompt Length')).toHaveValue('900');
    await expectTables(page, await oneMinuteCosts(page, { systemPromptLength: 2500, userPromptLength: 900, messagesLength: 288, messagesPerMinute: 5 }));
  });

  test('a NORMAL user on the pricing page is sent to /conversation/new', async ({ page, request }) => {
    const user = await registerUser(request);
    await signInAs(page, user.email, user.password);
    await page.goto('/admin/pricing/conversation');
    await expect(page).toHaveURL(/\/conversation\/new$/);
  });
});
