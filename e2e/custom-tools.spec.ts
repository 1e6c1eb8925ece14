import { expect, test } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';

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
  await signInAsAdmin(page);
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

// Issue 22 item 3: the same tool defined with the form beside the JSON editor (no JSON typed by hand): the
// parameters are checked, the header value is saved masked and never shown again, and "Test tool" runs it.
test('define a custom tool with the form and test it', async ({ page, baseURL }) => {
  await signInAsAdmin(page);
  const created = await page.request.post('/api/admin/conversation-type/create-edit', {
    data: { title: `Tool form ${Date.now()}`, rolePrompt: 'You help with orders.', errorPrompt: 'Sorry.' },
  });
  const typeId = (await created.json()).conversationType.id as number;
  await page.goto(`/admin/conversation-type/${typeId}/config`);
  const form = page.getByTestId('custom-tool-form');
  await form.getByRole('button', { name: 'Add tool' }).click();
  await form.getByLabel('Tool name').fill('health_probe');
  await form.getByLabel('Description for the model').fill('Checks that the service is up.');
  await form.getByLabel('Parameters (JSON Schema)').fill('{"type": "string"}');
  await form.getByRole('combobox', { name: 'Method' }).click();
  await page.getByRole('option', { name: 'GET', exact: true }).click();
  await form.getByLabel('URL').fill(`${baseURL}/api/health/{probe}`);
  await form.getByRole('button', { name: 'Add header' }).click();
  await form.getByLabel('Header 1 name').fill('X-Api-Key');
  await form.getByLabel('Header 1 value').fill('team-key-4242');
  await form.getByLabel("Needs the prospect's confirmation first").check();
  await form.getByRole('button', { name: 'Add and save tool' }).click();
  await expect(form.getByRole('alert')).toContainText('Parameters must be a JSON Schema object with "type": "object".');

  await form.getByLabel('Parameters (JSON Schema)').fill('{"type": "object", "properties": {"probe": {"type": "string"}}, "required": ["probe"]}');
  await form.getByRole('button', { name: 'Add and save tool' }).click();
  await expect(form.getByRole('button', { name: 'Edit tool health_probe' })).toBeVisible();
  const stored = JSON.parse((await (await page.request.get(`/api/conversation-type/${typeId}`)).json()).config);
  expect(stored.tools).toEqual([
    expect.objectContaining({ name: 'health_probe', method: 'GET', url: `${baseURL}/api/health/{probe}`, headers: { 'X-Api-Key': '••••4242' }, confirm: true }),
  ]);
  // The editor shows the stored config: the value typed into the form is not on the page any more.
  await expect(page.getByTestId('json-config-editor')).toContainText('health_probe');
  await expect(page.getByTestId('json-config-editor')).not.toContainText('team-key-4242');

  const panel = page.getByTestId('tool-health_probe');
  await panel.getByLabel('Sample arguments for health_probe').fill('{"probe": "ready"}');
  await panel.getByRole('button', { name: 'Test tool' }).click();
  await expect(panel.getByTestId('tool-test-result')).toContainText('Answered 200');

  // Editing keeps the secret: its field is blank with the masked value as placeholder.
  await form.getByRole('button', { name: 'Edit tool health_probe' }).click();
  await expect(form.getByLabel('Header 1 value')).toHaveValue('');
  await expect(form.getByLabel('Header 1 value')).toHaveAttribute('placeholder', 'unchanged (••••4242)');
  await form.getByLabel('Description for the model').fill('Checks the service health.');
  await form.getByRole('button', { name: 'Save tool' }).click();
  await expect(form.getByRole('button', { name: 'Edit tool health_probe' })).toBeVisible();
  const edited = JSON.parse((await (await page.request.get(`/api/conversation-type/${typeId}`)).json()).config);
  expect(edited.tools[0]).toMatchObject({ description: 'Checks the service health.', headers: { 'X-Api-Key': '••••4242' } });
  await page.screenshot({ path: 'test-results/custom-tool-form.png', fullPage: true });
});
