import path from 'node:path';
import { expect, test } from '@playwright/test';
import { signInAsAdmin, openFromAdminHello } from './support/fixtures.ts';

const FIXTURES = path.join(import.meta.dirname, '../apps/server/src/test/fixtures/knowledge');

test.describe('knowledge base', () => {
  test('an ADMIN creates a collection from /admin/hello, adds an FAQ entry and a PDF, watches them become ready and asks the test box', async ({ page }) => {
    await signInAsAdmin(page);
    await openFromAdminHello(page, 'Knowledge base');
    await page.getByRole('textbox', { name: 'New collection' }).fill('E2E facts');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await expect(page.getByRole('heading', { name: 'Knowledge: E2E facts' })).toBeVisible();

    const faq = page.getByRole('form', { name: 'Add FAQ entry' });
    await faq.getByRole('textbox', { name: 'Question' }).fill('Does the Pro plan include WhatsApp?');
    await faq.getByRole('textbox', { name: 'Answer' }).fill('Yes, the Pro plan includes WhatsApp and Messenger.');
    await faq.getByRole('button', { name: 'Add entry' }).click();

    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Choose file' }).click();
    await (await chooser).setFiles(path.join(FIXTURES, 'pricing.pdf'));

    const sources = page.getByRole('table', { name: 'Knowledge sources' });
    // Ingestion runs as a job; the table polls until both are ready, without a reload.
    await expect(sources.getByRole('row').filter({ hasText: 'Does the Pro plan include WhatsApp?' })).toContainText('Ready', { timeout: 20_000 });
    await expect(sources.getByRole('row').filter({ hasText: 'pricing.pdf' })).toContainText('Ready', { timeout: 20_000 });

    const box = page.getByRole('form', { name: 'Test the knowledge base' });
    await box.getByRole('textbox', { name: 'Question' }).fill('How much does installation cost?');
    await box.getByRole('button', { name: 'Search' }).click();
    const passages = page.getByLabel('Retrieved passages');
    await expect(passages).toContainText('480 euros');
    await expect(passages).toContainText('score');
    await page.screenshot({ path: '/tmp/knowledge-collection.png', fullPage: true });
  });
});
