import { expect, test } from '@playwright/test';
import { loginAsAdmin } from './support/fixtures.ts';

/** Replaces the CodeMirror document with `text` (insertText avoids the editor's auto-closing brackets). */
async function setEditorText(page: import('@playwright/test').Page, text: string) {
  const editor = page.locator('.cm-content');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

// Issue 22 item 3: an ADMIN defines a custom HTTP tool in the type's config, saves it (the header value comes
// back masked) and runs it with the "Test tool" button. The E2E server allows private URLs, so the tool calls
// the app's own health endpoint.
test('define a custom tool in the config and test it', async ({ page, baseURL }) => {
  await loginAsAdmin(page);
  const created = await page.request.post('/api/admin/conversation-type/create-edit', {
    data: { title: `Tools ${Date.now()}`, rolePrompt: 'You help with orders.', errorPrompt: 'Sorry.' },
  });
  const typeId = (await created.json()).conversationType.id as number;
  await page.goto(`/admin/conversation-type/${typeId}/config`);
  const config = {
    tools: [
      {
        name: 'health_check',
        description: 'Checks that the service is up.',
        parameters: { type: 'object', properties: { probe: { type: 'string' } } },
        method: 'GET',
        url: `${baseURL}/api/health/{probe}`,
        headers: { 'X-Api-Key': 'team-key-9911' },
      },
    ],
  };
  await setEditorText(page, JSON.stringify(config));
  await page.getByRole('button', { name: 'Save' }).click();
  const panel = page.getByTestId('tool-health_check');
  await expect(panel).toBeVisible();
  const stored = await (await page.request.get(`/api/conversation-type/${typeId}`)).json();
  expect(stored.config).toContain('"X-Api-Key":"••••9911"');
  await panel.getByLabel('Sample arguments for health_check').fill('{"probe": "ready"}');
  await panel.getByRole('button', { name: 'Test tool' }).click();
  const result = panel.getByTestId('tool-test-result');
  await expect(result).toContainText('Answered 200');
  await page.screenshot({ path: 'test-results/custom-tools.png', fullPage: true });

  await panel.getByLabel('Sample arguments for health_check').fill('{"probe": "nope-nope"}');
  await panel.getByRole('button', { name: 'Test tool' }).click();
  await expect(result).toContainText('The tool failed');
  await expect(result).toContainText('answered HTTP 404');
});
