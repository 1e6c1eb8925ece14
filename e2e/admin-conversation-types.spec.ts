import { type Locator, type Page, expect, test } from '@playwright/test';
import { confirmModal, signInAsAdmin, registerUser, signInAs } from './support/fixtures.ts';
import { expectNoHorizontalPageScroll, expectPinnedColumnCoversNoField, expectWithinViewportWidth, signInAsAdminThenPhone } from './support/viewport.ts';

/** Success toasts are Mantine notifications; this finds one by its exact text. */
const toast = (page: Page, text: string) => page.locator('.mantine-Notification-root').filter({ hasText: text });

/** Replaces the CodeMirror document with `text` (insertText avoids the editor's auto-closing brackets). */
async function setEditorText(page: Page, text: string) {
  const editor = page.locator('.cm-content');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  await expect(editor).toHaveText(text.replace(/\n/g, ''));
}

async function addPhase(page: Page, texts: { prompt: string; transition: string; followUp: string }) {
  await page.getByRole('button', { name: 'Create Conversation Phase' }).click();
  const row = page.getByRole('row', { name: 'New phase' });
  await expect(row).toBeVisible();
  await row.getByLabel('Prompt', { exact: true }).fill(texts.prompt);
  await row.getByLabel('Transition prompt').fill(texts.transition);
  await row.getByLabel('Follow-up prompt').fill(texts.followUp);
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page, 'Phase saved successfully!').first()).toBeVisible();
  // Spec §4: the creation row hides after save.
  await expect(row).toHaveCount(0);
}

const phaseRow = (page: Page, index: number): Locator => page.getByRole('row', { name: `Phase ${index}`, exact: true });

test.describe('admin conversation types', () => {
  test('create a type, manage its phases, duplicate it, edit its config and delete it', async ({ page, browser }) => {
    const stamp = Date.now();
    const title = `E2E playbook ${stamp} with a long descriptive title to cut`;
    await signInAsAdmin(page);

    // Create
    await page.goto('/admin/conversation-type/create');
    await expect(page.getByRole('heading', { name: 'Create conversation type' })).toBeVisible();
    await expect(page.getByRole('table', { name: 'Conversation phases' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Role prompt is required')).toBeVisible();
    await page.getByLabel('Title', { exact: true }).fill(title);
    // Issue 24: what visitors see instead of the internal title, a field of the form with its help.
    await expect(page.getByText("What visitors and prospects see, e.g. \"Talk to Sunny Roofs\": the chat's name")).toBeVisible();
    await page.getByLabel('Public title').fill('x'.repeat(81));
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Public title must be at most 80 characters')).toBeVisible();
    await page.getByLabel('Public title').fill('Talk to Ada');
    await page.getByLabel('Role prompt').fill('You are Ada, you sell accounting software to bakeries.');
    await page.getByLabel('Error prompt').fill('Apologise and promise a human follow-up.');
    await page.getByLabel('Initial message').fill('Hello from Ada!');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/admin\/conversation-type\/\d+\/edit$/);
    const typeId = Number(page.url().match(/conversation-type\/(\d+)\/edit/)![1]);
    await expect(page.getByLabel('Title', { exact: true })).toHaveValue(title);
    await expect(page.getByLabel('Public title')).toHaveValue('Talk to Ada');
    const saved = await (await page.request.get(`/api/conversation-type/${typeId}`)).json();
    expect(saved).toMatchObject({ title, publicTitle: 'Talk to Ada' });
    // A visitor who is not signed in picks the type by its public title, never by the internal one.
    const visitorContext = await browser.newContext();
    const visitor = await visitorContext.newPage();
    await visitor.goto('/conversation/new');
    await visitor.getByRole('combobox', { name: 'Conversation type' }).click();
    await expect(visitor.getByRole('option', { name: 'Talk to Ada' })).toBeVisible();
    await expect(visitor.getByText('E2E playbook')).toHaveCount(0);
    await visitorContext.close();

    // Three phases; prompt areas have 15 rows (spec §2.6)
    for (const i of [0, 1, 2]) {
      await addPhase(page, { prompt: `Goal of phase ${i}`, transition: `Move on from ${i}`, followUp: `Nudge ${i}` });
      await expect(phaseRow(page, i).getByLabel('Prompt', { exact: true })).toHaveValue(`Goal of phase ${i}`);
    }
    for (const label of ['Prompt', 'Transition prompt', 'Follow-up prompt']) {
      await expect(phaseRow(page, 0).getByLabel(label, { exact: true })).toHaveAttribute('rows', '15');
    }

    // Edit one phase; it survives a reload
    await phaseRow(page, 1).getByLabel('Prompt', { exact: true }).fill('Edited goal of phase 1');
    await phaseRow(page, 1).getByRole('button', { name: 'Save' }).click();
    await expect(toast(page, 'Phase saved successfully!').first()).toBeVisible();
    await page.reload();
    await expect(phaseRow(page, 1).getByLabel('Prompt', { exact: true })).toHaveValue('Edited goal of phase 1');

    // Delete one phase: confirmation, notice, then the page reloads after 1 s
    await page.evaluate(() => ((window as unknown as { beforeReload: boolean }).beforeReload = true));
    await phaseRow(page, 2).getByRole('button', { name: 'Delete' }).click();
    const reloaded = page.waitForEvent('load');
    await confirmModal(page, 'Delete this phase?');
    await expect(toast(page, 'Phase deleted successfully')).toBeVisible();
    await reloaded;
    expect(await page.evaluate(() => (window as unknown as { beforeReload?: boolean }).beforeReload)).toBeUndefined();
    await expect(phaseRow(page, 2)).toHaveCount(0);
    await expect(phaseRow(page, 0)).toBeVisible();
    await expect(phaseRow(page, 1)).toBeVisible();

    // List: ID and title, then Duplicate opens the copy with '[D] ' and the phases
    await page.goto('/admin/conversation-type/list');
    const row = page.getByRole('row', { name: `Conversation type ${typeId}`, exact: true });
    await expect(row.getByRole('cell').first()).toHaveText(String(typeId));
    await expect(row).toContainText(title);
    await expect(row.getByRole('link', { name: 'Contacts' })).toHaveCount(0);
    await row.getByRole('button', { name: 'Duplicate' }).click();
    await expect(toast(page, 'Conversation type duplicated successfully')).toBeVisible();
    await expect(page).toHaveURL(/\/admin\/conversation-type\/\d+\/edit$/);
    const copyId = Number(page.url().match(/conversation-type\/(\d+)\/edit/)![1]);
    expect(copyId).not.toBe(typeId);
    await expect(page.getByLabel('Title', { exact: true })).toHaveValue(`[D] ${title}`);
    await expect(page.getByLabel('Role prompt')).toHaveValue('You are Ada, you sell accounting software to bakeries.');
    await expect(phaseRow(page, 0).getByLabel('Prompt', { exact: true })).toHaveValue('Goal of phase 0');
    await expect(phaseRow(page, 1).getByLabel('Prompt', { exact: true })).toHaveValue('Edited goal of phase 1');
    await expect(phaseRow(page, 1).getByLabel('Follow-up prompt')).toHaveValue('Nudge 1');

    // Config: heading cut to 50 characters; invalid JSON refused in the browser; server 400 shown; valid saved
    await page.goto(`/admin/conversation-type/${typeId}/config`);
    const heading = page.getByRole('heading', { level: 1 });
    await expect(heading).toHaveText(/^Config: E2E playbook/);
    expect((await heading.textContent())!.length).toBe(50);
    // The form's Public title is kept in the config (its publicTitle).
    await expect(page.locator('.cm-content')).toHaveText(/^\{\s*"publicTitle": "Talk to Ada"\s*\}$/);
    let configPosts = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(`/conversation-type/${typeId}/config`)) configPosts += 1;
    });
    await setEditorText(page, '{"temperature": 0.3,');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('alert', { name: 'The configuration was not saved' })).toContainText('Invalid JSON');
    expect(configPosts).toBe(0);
    await setEditorText(page, '{"temperature": 7}');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.locator('.mantine-Notification-root').filter({ hasText: 'temperature' })).toBeVisible();
    await setEditorText(page, '{"temperature": 0.3, "crm": "GHL"}');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(toast(page, 'Configuration saved successfully.')).toBeVisible();
    await page.reload();
    await expect(page.locator('.cm-content')).toHaveText('{"temperature": 0.3, "crm": "GHL"}');

    // The CRM-linked type now has a Contacts button; Delete asks first and removes the row
    await page.goto('/admin/conversation-type/list');
    await expect(row.getByRole('link', { name: 'Contacts' })).toHaveAttribute('href', `/admin/conversation-type/${typeId}/contacts`);
    await row.getByRole('button', { name: 'Delete' }).click();
    await confirmModal(page, `Delete conversation type #${typeId}?`);
    await expect(row).toHaveCount(0);
    await expect(page.getByRole('row', { name: `Conversation type ${copyId}`, exact: true })).toBeVisible();

  });

  test('the list cuts a title-less prompt to 200 characters; duplicating a type deleted meanwhile says it is not found', async ({ page }) => {
    await signInAsAdmin(page);
    const rolePrompt = `Long role ${Date.now()} `.padEnd(300, 'x');
    const created = await page.request.post('/api/admin/conversation-type/create-edit', { data: { rolePrompt, errorPrompt: 'Sorry.' } });
    expect(created.status()).toBe(200);
    const { id } = (await created.json()).conversationType;
    await page.goto('/admin/conversation-type/list');
    const row = page.getByRole('row', { name: `Conversation type ${id}`, exact: true });
    const cell = row.getByRole('cell').nth(1);
    await expect(cell).toHaveText(`${rolePrompt.slice(0, 199)}…`);

    // Gone on the server while the list on screen still shows it.
    expect((await page.request.post(`/api/admin/conversation-type/${id}/delete`)).status()).toBe(200);
    await row.getByRole('button', { name: 'Duplicate' }).click();
    await expect(page.locator('.mantine-Notification-root').filter({ hasText: 'Conversation type not found' })).toBeVisible();
    await expect(page).toHaveURL(/\/admin\/conversation-type\/list$/);
  });

  test('a NORMAL user on the conversation type pages is sent to /conversation/new', async ({ page, request }) => {
    const user = await registerUser(request);
    await signInAs(page, user.email, user.password);
    await page.goto('/admin/conversation-type/list');
    await expect(page).toHaveURL(/\/conversation\/new$/);
  });

  test.describe('at 390×844', () => {
    test("the list's Actions and a phase's Save stay on screen and work", async ({ page }) => {
      await signInAsAdminThenPhone(page);
      const title = `Phone playbook ${Date.now()} with a title long enough to need several lines on a phone`;
      const created = await page.request.post('/api/admin/conversation-type/create-edit', {
        data: { title, rolePrompt: 'You sell solar panels.', errorPrompt: 'Sorry.', config: '{"crm": "GHL"}' },
      });
      expect(created.status(), await created.text()).toBe(200);
      const { id } = (await created.json()).conversationType;

      await page.goto('/admin/conversation-type/list');
      const row = page.getByRole('row', { name: `Conversation type ${id}`, exact: true });
      await row.scrollIntoViewIfNeeded();
      await expect(row).toContainText(title);
      await expectNoHorizontalPageScroll(page);
      for (const name of ['Edit', 'Config', 'Contacts', 'Duplicate', 'Delete']) {
        await expectWithinViewportWidth(page, row.getByRole(name === 'Duplicate' || name === 'Delete' ? 'button' : 'link', { name, exact: true }));
      }
      await page.screenshot({ path: '/tmp/conversation-types-phone.png', fullPage: true });

      await row.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await row.getByRole('link', { name: 'Edit', exact: true }).click();
      await expect(page).toHaveURL(`/admin/conversation-type/${id}/edit`);

      // The phases table is wider than the phone too; Save and Cancel of the new row stay in view.
      await page.getByRole('button', { name: 'Create Conversation Phase' }).click();
      const phase = page.getByRole('row', { name: 'New phase' });
      await phase.getByLabel('Prompt', { exact: true }).fill('Find out the roof size');
      await phase.getByLabel('Transition prompt').fill('The roof size is known');
      await expectNoHorizontalPageScroll(page);
      await phase.getByRole('button', { name: 'Save' }).scrollIntoViewIfNeeded();
      for (const name of ['Save', 'Cancel']) await expectWithinViewportWidth(page, phase.getByRole('button', { name }));
      // Issue 24: the pinned Actions column covers none of the fields being typed in.
      await expectPinnedColumnCoversNoField(page.getByRole('table', { name: 'Conversation phases' }));
      await page.screenshot({ path: '/tmp/conversation-phases-phone.png', fullPage: true });
      await phase.getByRole('button', { name: 'Save' }).click();
      await expect(toast(page, 'Phase saved successfully!').first()).toBeVisible();
      await expect(phaseRow(page, 0).getByLabel('Prompt', { exact: true })).toHaveValue('Find out the roof size');
      await expectWithinViewportWidth(page, phaseRow(page, 0).getByRole('button', { name: 'Delete' }));
      await expectPinnedColumnCoversNoField(page.getByRole('table', { name: 'Conversation phases' }));
    });
  });
});
