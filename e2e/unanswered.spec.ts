import { expect, test } from '@playwright/test';
import { confirmModal, signInAsAdmin } from './support/fixtures.ts';
import { expectNoHorizontalPageScroll, expectWithinViewportWidth, signInAsAdminThenPhone } from './support/viewport.ts';

test.describe('unanswered conversations', () => {
  test('the monitor shows a new silence without reloading; an ADMIN deactivates, activates and deletes it', async ({ page, request }) => {
    await signInAsAdmin(page);
    await page.goto('/admin/unanswered-conversations/list');
    const active = page.getByRole('table', { name: 'Active unanswered conversations', exact: true });
    const inactive = page.getByRole('table', { name: 'Inactive unanswered conversations', exact: true });
    for (const column of ['ID', 'Conversation UUID', 'Phase', 'Follow Ups', 'Earliest Reply', 'Prospect UUID', 'Account Name', 'Errors', 'Status', 'Actions']) {
      await expect(active.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
      await expect(inactive.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
    }

    // A visitor talks to the demo agent elsewhere: once the agent has answered, the conversation waits on the
    // visitor and appears in the Active table by the 3 s refresh.
    const types = await (await request.get('/api/conversation-type/listt')).json();
    const demo = types.find((t: { title: string }) => t.title === 'Demo: Sales assistant');
    const { uuid } = await (await request.post('/api/conversation/new', { data: { conversationTypeId: demo.id } })).json();
    await request.post(`/api/conversation/${uuid}/written-message`, { data: { message: 'Tell me about pricing' } });
    const row = active.getByRole('row').filter({ has: page.getByRole('link', { name: uuid }) });
    await expect(row).toBeVisible({ timeout: 20_000 });
    await expect(row).toContainText('No errors');
    // The status as a word, not the stored enum value.
    await expect(row.getByRole('cell', { name: 'Active', exact: true })).toBeVisible();
    await page.screenshot({ path: '/tmp/unanswered-list.png', fullPage: true });

    await row.getByRole('button', { name: 'Deactivate' }).click();
    await confirmModal(page, /Deactivate unanswered conversation/);
    await expect(page.getByText('Unanswered conversation status updated successfully').first()).toBeVisible();
    const inactiveRow = inactive.getByRole('row').filter({ has: page.getByRole('link', { name: uuid }) });
    await expect(inactiveRow.getByRole('cell', { name: 'Inactive', exact: true })).toBeVisible();
    await expect(row).toHaveCount(0);

    await inactiveRow.getByRole('button', { name: 'Activate' }).click();
    await confirmModal(page, /Activate unanswered conversation/);
    await expect(row.getByRole('cell', { name: 'Active', exact: true })).toBeVisible();

    // Cancel keeps the row; Confirm deletes it.
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(row).toBeVisible();
    await row.getByRole('button', { name: 'Delete' }).click();
    await confirmModal(page, /Delete unanswered conversation/);
    await expect(page.getByText('Unanswered conversation deleted successfully')).toBeVisible();
    await expect(row).toHaveCount(0);

    await page.goto('/admin/unanswered-conversations/list');
    await expect(page.getByRole('link', { name: uuid })).toHaveCount(0);
  });

  test('the conversation uuid links to its detail page', async ({ page, request }) => {
    const types = await (await request.get('/api/conversation-type/listt')).json();
    const demo = types.find((t: { title: string }) => t.title === 'Demo: Sales assistant');
    const { uuid } = await (await request.post('/api/conversation/new', { data: { conversationTypeId: demo.id } })).json();
    await request.post(`/api/conversation/${uuid}/written-message`, { data: { message: 'Hello there' } });
    await signInAsAdmin(page);
    await page.goto('/admin/unanswered-conversations/list');
    await page.getByRole('link', { name: uuid }).click({ timeout: 20_000 });
    await expect(page).toHaveURL(new RegExp(`/conversation/${uuid}$`));
    await expect(page.getByText('Tell me about pricing')).toHaveCount(0);
    await expect(page.locator('[data-testid="message"][data-role="PROSPECT"]')).toContainText('Hello there');
  });

  test.describe('at 390×844', () => {
    test("a row's Actions stay on screen beside the wide table and work", async ({ page, request }) => {
      const types = await (await request.get('/api/conversation-type/listt')).json();
      const demo = types.find((t: { title: string }) => t.title === 'Demo: Sales assistant');
      const { uuid } = await (await request.post('/api/conversation/new', { data: { conversationTypeId: demo.id } })).json();
      await request.post(`/api/conversation/${uuid}/written-message`, { data: { message: 'Is there a phone plan?' } });
      await signInAsAdminThenPhone(page);
      await page.goto('/admin/unanswered-conversations/list');
      const active = page.getByRole('table', { name: 'Active unanswered conversations', exact: true });
      const row = active.getByRole('row').filter({ has: page.getByRole('link', { name: uuid }) });
      await expect(row).toBeVisible({ timeout: 20_000 });
      await row.scrollIntoViewIfNeeded();

      // Ten columns do not fit 390 px: the table scrolls inside its frame, the page does not, and the pinned
      // Actions column keeps both buttons in view.
      await expectNoHorizontalPageScroll(page);
      for (const name of ['Deactivate', 'Delete']) await expectWithinViewportWidth(page, row.getByRole('button', { name }));
      await page.screenshot({ path: '/tmp/unanswered-list-phone.png', fullPage: true });

      await row.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await row.getByRole('button', { name: 'Deactivate' }).click();
      await confirmModal(page, /Deactivate unanswered conversation/);
      const inactiveRow = page
        .getByRole('table', { name: 'Inactive unanswered conversations', exact: true })
        .getByRole('row')
        .filter({ has: page.getByRole('link', { name: uuid }) });
      await expect(inactiveRow.getByRole('cell', { name: 'Inactive', exact: true })).toBeVisible();
      await inactiveRow.scrollIntoViewIfNeeded();
      await expectWithinViewportWidth(page, inactiveRow.getByRole('button', { name: 'Activate' }));
      await expectNoHorizontalPageScroll(page);
    });
  });
});
