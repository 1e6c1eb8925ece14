import AxeBuilder from '@axe-core/playwright';
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { loginAsAdmin } from './support/fixtures.ts';

test.describe('analytics screen (issue 26)', () => {
  test('filters in the query string, funnel table, a step lists its conversations, CSV export, no serious axe finding', async ({ page }) => {
    await loginAsAdmin(page);
    const types = (await (await page.request.get('/api/conversation-type/listt')).json()) as { id: number }[];
    const typeId = types[0].id;
    const created = await page.request.post('/api/conversation/new', { data: { conversationTypeId: typeId } });
    expect(created.status()).toBe(201);
    const { uuid } = (await created.json()) as { uuid: string };
    const today = new Date().toISOString().slice(0, 10);
    const funnel = await (await page.request.get('/api/admin/analytics/funnel', { params: { conversationType: typeId, from: today, to: today } })).json();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics' }).click();
    await expect(page).toHaveURL(/\/analytics$/);
    const main = page.getByRole('main');
    // The previous page (with its own type select) stays until the lazy page has loaded.
    await expect(main.getByRole('heading', { name: 'Analytics', level: 1 })).toBeVisible();
    await main.getByRole('combobox', { name: 'Conversation type' }).selectOption(String(typeId));
    await expect(page).toHaveURL(new RegExp(`conversationType=${typeId}`));
    await main.getByLabel('From', { exact: true }).fill(today);
    await main.getByLabel('To', { exact: true }).fill(today);
    await expect(page).toHaveURL(new RegExp(`from=${today}.*to=${today}|to=${today}.*from=${today}`));

    const table = page.getByRole('table', { name: 'Funnel steps' });
    await expect(table.getByRole('row', { name: /^Started/ })).toContainText(String(funnel.started));
    await expect(page.getByRole('table', { name: 'Speed to first reply' })).toBeVisible();

    await table.getByRole('button', { name: 'Started' }).click();
    const list = page.getByRole('list', { name: 'Conversations: Started' });
    const [{ id }] = (await (await page.request.get('/api/admin/analytics/funnel/conversations', {
      params: { conversationType: typeId, from: today, to: today, step: 'started', limit: 1 },
    })).json()).conversations as { id: number }[];
    await expect(list.getByRole('link', { name: `#${id}` })).toHaveAttribute('href', new RegExp(uuid));

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await (await download).path();
    const csv = await readFile(file, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('step,conversations,percent of started,drop-off');
    expect(csv).toContain(`Started,${funnel.started},`);

    // The filters survive a reload (they live in the query string).
    await page.reload();
    await expect(main.getByRole('combobox', { name: 'Conversation type' })).toHaveValue(String(typeId));
    await expect(page.getByRole('table', { name: 'Funnel steps' })).toBeVisible();
    const axe = await new AxeBuilder({ page }).include('main').analyze();
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  });
});
