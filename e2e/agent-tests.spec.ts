import { expect, test, type Page } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';

/**
 * Issue 25 in Chromium: write a scenario, run it on the draft, see the failing criterion with its transcript,
 * fix the prompt, run again, publish. Offline: the demo agent answers a scripted prospect.
 */
async function createType(page: Page): Promise<number> {
  const res = await page.request.post('/api/admin/conversation-type/create-edit', {
    data: { title: `E2E tests ${Date.now()}`, rolePrompt: 'You sell solar.', errorPrompt: 'Sorry.', isPublic: false },
  });
  expect(res.status()).toBe(200);
  const id = (await res.json()).conversationType.id as number;
  for (const [index, prompt] of ['Ask what they need.', 'Offer a discount to close.'].entries()) {
    const phase = await page.request.post('/api/admin/conversation-phase/create-edit', {
      data: { index, prompt, transitionPrompt: 'Move on when ready.', conversationType: { id } },
    });
    expect(phase.status()).toBe(200);
  }
  return id;
}

test('an ADMIN tests a draft, sees the failing criterion, fixes the prompt, runs again and publishes', async ({ page }) => {
  await signInAsAdmin(page);
  const id = await createType(page);
  await page.goto(`/admin/conversation-type/${id}/edit`);
  await page.getByRole('link', { name: 'Tests and versions' }).click();

  await page.getByRole('textbox', { name: 'Scenario name' }).fill('No discounts');
  await page.getByRole('textbox', { name: 'Opening message' }).fill('Hi, I want panels');
  await page.getByRole('textbox', { name: 'Scripted prospect messages (one per line)' }).fill('Sounds good');
  await page.getByRole('textbox', { name: 'Criteria (JSON)' }).fill('[{ "kind": "reachesPhase", "phase": 1 }, { "kind": "neverSays", "text": "discount" }]');
  await page.getByRole('button', { name: 'Save scenario' }).click();
  await expect(page.getByRole('cell', { name: 'No discounts' })).toBeVisible();

  await page.getByRole('button', { name: 'Run scenarios' }).click();
  const report = page.getByLabel('Test run report');
  await expect(report.getByText('Failed', { exact: true })).toBeVisible({ timeout: 20_000 });
  const failing = report.locator('[data-failing="true"]');
  await expect(failing).toHaveCount(1);
  await expect(failing).toContainText('neverSays');
  await expect(report).toContainText('Phase 2 of 2: Offer a discount to close.');

  // Fix the prompt on the type page (the draft), then run again.
  await page.getByRole('link', { name: 'Back to the conversation type' }).click();
  const phase = page.getByRole('row', { name: 'Phase 1', exact: true });
  await phase.getByLabel('Prompt', { exact: true }).fill('Offer a demo on Friday.');
  await phase.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Phase saved successfully!').first()).toBeVisible();
  await page.getByRole('link', { name: 'Tests and versions' }).click();
  await page.getByRole('button', { name: 'Run scenarios' }).click();
  await expect(page.getByLabel('Test run report').getByText('Passed', { exact: true })).toBeVisible({ timeout: 20_000 });

  await page.getByRole('textbox', { name: 'Version note' }).fill('No discounts any more');
  await page.getByRole('button', { name: 'Publish draft' }).click();
  await expect(page.getByText('New conversations start on version 1.')).toBeVisible();
  await expect(page.getByRole('cell', { name: 'No discounts any more' })).toBeVisible();
  await page.screenshot({ path: '/tmp/agent-tests.png', fullPage: true });
});

test('an ADMIN runs the same scenarios on two versions and compares them side by side', async ({ page }) => {
  await signInAsAdmin(page);
  const id = await createType(page);
  const scenario = await page.request.post(`/api/admin/conversation-type/${id}/scenarios`, {
    data: { name: 'No discounts', opening: 'Hi, I want panels', messages: ['Sounds good'], criteria: [{ kind: 'reachesPhase', phase: 1 }, { kind: 'neverSays', text: 'discount' }] },
  });
  expect(scenario.status()).toBe(200);
  // Version 1 offers a discount in phase 1; the draft then offers a demo instead.
  expect((await page.request.post(`/api/admin/conversation-type/${id}/versions/publish`, { data: { note: 'With discount' } })).status()).toBe(200);
  const phases = (await (await page.request.get(`/api/admin/conversation-phase/${id}/list`)).json()) as { id: number; index: number }[];
  const fix = await page.request.post('/api/admin/conversation-phase/create-edit', {
    data: { id: phases.find((p) => p.index === 1)!.id, index: 1, prompt: 'Offer a demo on Friday.', transitionPrompt: 'Move on when ready.', conversationType: { id } },
  });
  expect(fix.status()).toBe(200);

  await page.goto(`/admin/conversation-type/${id}/tests`);
  await page.getByRole('combobox', { name: 'Version A' }).click();
  await page.getByRole('option', { name: 'Version 1' }).click();
  await page.getByRole('button', { name: 'Run both and compare' }).click();
  const comparison = page.getByLabel('Version comparison');
  await expect(comparison.getByRole('columnheader', { name: 'A: version 1' })).toBeVisible({ timeout: 20_000 });
  await expect(comparison.getByRole('columnheader', { name: 'B: the draft' })).toBeVisible();
  await expect(comparison.getByRole('row', { name: /^All scenarios/ })).toHaveText(/0 %\s*100 %/);
  await expect(comparison.getByRole('row', { name: /^neverSays/ })).toHaveText(/0 %\s*100 %/);
  await expect(comparison.getByRole('row', { name: /^reachesPhase/ })).toHaveText(/100 %\s*100 %/);

  // The transcripts of each side are a click away: A's run shows the failing criterion.
  await comparison.getByRole('button', { name: 'Show transcripts of A (version 1)' }).click();
  const report = comparison.getByLabel('Test run report');
  await expect(report.locator('[data-failing="true"]')).toContainText('neverSays');
  await expect(report).toContainText('Offer a discount to close.');
  await page.screenshot({ path: '/tmp/agent-tests-compare.png', fullPage: true });
});
