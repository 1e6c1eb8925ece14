import AxeBuilder from '@axe-core/playwright';
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';

test.describe('analytics screen (issue 26)', () => {
  test('filters in the query string, funnel table, a step lists its conversations, CSV export, no serious axe finding', async ({ page }) => {
    await signInAsAdmin(page);
    const types = (await (await page.request.get('/api/conversation-type/listt')).json()) as { id: number }[];
    const typeId = types[0].id;
    const created = await page.request.post('/api/conversation/new', { data: { conversationTypeId: typeId } });
    expect(created.status()).toBe(201);
    const { uuid } = (await created.json()) as { uuid: string };
    const today = new Date().toISOString().slice(0, 10);
    const funnel = await (await page.request.get('/api/admin/analytics/funnel', { params: { conversationType: typeId, from: today, to: today } })).json();

    await page.goto('/');
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

  test('an A/B test started, its arms compared, then stopped with a winner', async ({ page }) => {
    await signInAsAdmin(page);
    const created = await page.request.post('/api/admin/conversation-type/create-edit', { data: { rolePrompt: `A/B ${Date.now()}`, errorPrompt: 'Sorry.' } });
    expect(created.status()).toBe(200);
    const typeId = (await created.json()).conversationType.id as number;
    for (const note of ['first', 'second']) {
      expect((await page.request.post(`/api/admin/conversation-type/${typeId}/versions/publish`, { data: { note } })).status()).toBe(200);
    }
    const today = new Date().toISOString().slice(0, 10);
    await page.goto(`/analytics?conversationType=${typeId}&from=${today}&to=${today}`);
    const main = page.getByRole('main');
    await expect(main.getByText('No A/B test of this conversation type yet.')).toBeVisible();
    await main.getByRole('combobox', { name: 'Version A' }).selectOption('1');
    await main.getByRole('combobox', { name: 'Version B' }).selectOption('2');
    await main.getByRole('textbox', { name: 'Share to B (%)' }).fill('100');
    await main.getByRole('button', { name: 'Start A/B test' }).click();
    await expect(main.getByText(/Splitting new conversations: version 1 \(A\) 0 % · version 2 \(B\) 100 %/)).toBeVisible();

    // A new conversation goes to B; the arms' table shows it, and with nothing in A the verdict says so.
    expect((await page.request.post('/api/conversation/new', { data: { conversationTypeId: typeId } })).status()).toBe(201);
    await page.reload();
    const arms = main.getByRole('table', { name: 'A/B arms' });
    await expect(arms.getByRole('row', { name: /^B · version 2/ })).toContainText('1');
    await expect(arms.getByRole('row', { name: /^A · version 1/ })).toBeVisible();
    await expect(main.getByText(/Not enough data yet/)).toBeVisible();
    await main.getByRole('button', { name: 'Export A/B CSV' }).click();
    await page.screenshot({ path: 'test-results/analytics-ab-running.png', fullPage: true });

    await main.getByRole('combobox', { name: 'Winner' }).selectOption('B');
    await main.getByRole('button', { name: 'Stop test' }).click();
    await expect(main.getByText('Stopped, winner B')).toBeVisible();
    await expect(main.getByRole('button', { name: 'Start A/B test' })).toBeVisible();
    const tests = await (await page.request.get(`/api/admin/conversation-type/${typeId}/ab-test`)).json();
    expect(tests).toMatchObject({ running: null, tests: [{ versionA: 1, versionB: 2, winner: 'B', running: false }] });
    await page.screenshot({ path: 'test-results/analytics-ab-stopped.png', fullPage: true });
  });

  test('outcomes per day, cost by channel, voice, hand-offs and follow-ups as tables and CSV, and the messaging-account filter in the query string', async ({ page }) => {
    await signInAsAdmin(page);
    const stamp = Date.now();
    const created = await page.request.post('/api/admin/conversation-type/create-edit', { data: { rolePrompt: `Cost ${stamp}`, errorPrompt: 'Sorry.' } });
    const typeId = (await created.json()).conversationType.id as number;
    const account = await page.request.post('/api/admin/messaging-accounts/create-edit', {
      data: { type: 'INSTAGRAM', accessToken: `tok-${stamp}`, pageId: `ig-cost-${stamp}`, pageName: `Cost page ${stamp}` },
    });
    const accountId = (await account.json()).messagingAccount.id as number;
    expect((await page.request.post('/api/conversation/new', { data: { conversationTypeId: typeId } })).status()).toBe(201);
    const today = new Date().toISOString().slice(0, 10);
    await page.goto(`/analytics?conversationType=${typeId}&from=${today}&to=${today}`);
    const main = page.getByRole('main');
    const table = main.getByRole('table', { name: 'Cost by channel' });
    await expect(table.getByRole('row', { name: /^WEB 1 0/ })).toBeVisible();
    await expect(table.getByRole('row', { name: /^All channels 1 0/ })).toBeVisible();
    const download = page.waitForEvent('download');
    await main.getByRole('button', { name: 'Export Cost CSV' }).click();
    const csv = await readFile(await (await download).path(), 'utf8');
    expect(csv.split('\r\n')[0]).toBe('channel,conversations,booked,LLM USD,voice USD,telephony USD,total USD,per conversation USD,per booked meeting USD');
    expect(csv).toContain('All channels,1,0,');
    const outcomes = main.getByRole('table', { name: 'Outcomes per day' });
    await expect(outcomes.getByRole('row', { name: new RegExp(`^${today}`) })).toBeVisible();
    const outcomesCsv = page.waitForEvent('download');
    await main.getByRole('button', { name: 'Export Outcomes CSV' }).click();
    expect((await readFile(await (await outcomesCsv).path(), 'utf8')).split('\r\n')[0]).toBe('day,ended,needs human,errored,ignored,no response,in progress');
    await expect(main.getByRole('table', { name: 'Voice' }).getByRole('row', { name: /^Calls/ })).toContainText('0');
    await expect(main.getByRole('table', { name: 'Voice' }).getByRole('row', { name: /^Response latency/ })).toBeVisible();
    // Hand-offs and follow-ups: a web chat has neither; the totals' rows and their CSV.
    await expect(main.getByText('0 of 1 conversations handed to a person (0 %)')).toBeVisible();
    await expect(main.getByRole('table', { name: 'Hand-offs by reason' }).getByRole('row', { name: /^All hand-offs 0 0/ })).toBeVisible();
    const handoffsCsv = page.waitForEvent('download');
    await main.getByRole('button', { name: 'Export Hand-offs CSV' }).click();
    expect((await readFile(await (await handoffsCsv).path(), 'utf8')).split('\r\n').slice(0, 2)).toEqual([
      'Reason,Hand-offs,Answered,Until a person answered p50,p90',
      'All hand-offs,0,0,–,–',
    ]);
    await expect(main.getByRole('table', { name: 'Follow-ups by rank' }).getByRole('row', { name: /^All follow-ups 0 0/ })).toBeVisible();
    const followUpsCsv = page.waitForEvent('download');
    await main.getByRole('button', { name: 'Export Follow-ups CSV' }).click();
    expect((await readFile(await (await followUpsCsv).path(), 'utf8')).split('\r\n')[0]).toBe('Follow-up,Sent,Brought the prospect back,Share');
    await page.screenshot({ path: 'test-results/analytics-cost.png', fullPage: true });

    // Only the account's conversations: the web chat drops out.
    await main.getByRole('combobox', { name: 'Messaging account' }).selectOption(String(accountId));
    await expect(page).toHaveURL(new RegExp(`messagingAccount=${accountId}`));
    await expect(table.getByRole('row', { name: /^All channels 0 0/ })).toBeVisible();
    await expect(main.getByRole('table', { name: 'Funnel steps' }).getByRole('row', { name: /^Started/ })).toContainText('0');
  });
});
