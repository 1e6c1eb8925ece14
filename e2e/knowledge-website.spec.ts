import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';

// Issue 21: an ADMIN crawls a website (a loopback test site; the E2E server sets ALLOW_PRIVATE_URLS) and the
// test box finds its pages.
let site: Server;
let origin = '';
const page = (title: string, body: string, links = '') =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav>${links}</nav><article><h1>${title}</h1><p>${body}</p>` +
  `<p>${'We answer every question about our heat pumps and their installation. '.repeat(4)}</p></article></body></html>`;

test.beforeAll(async () => {
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    if (req.url === '/') return res.end(page('Heat pumps', 'Quiet heat pumps for homes.', '<a href="/service">Service</a>'));
    if (req.url === '/service') return res.end(page('Service plans', 'The yearly service plan costs 129 euros.'));
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
});

test('an ADMIN adds a website, sees it crawled and asks the test box about one of its pages', async ({ page: browser }) => {
  await signInAsAdmin(browser);
  const collection = (await (await browser.request.post('/api/admin/knowledge', { data: { name: `Website ${Date.now()}` } })).json()).id;
  await browser.goto(`/admin/knowledge/${collection}`);
  const form = browser.getByRole('form', { name: 'Add a website' });
  await form.getByRole('textbox', { name: 'Start URL' }).fill(`${origin}/`);
  await form.getByRole('button', { name: 'Crawl website' }).click();
  const row = browser.getByRole('table', { name: 'Knowledge sources' }).getByRole('row').filter({ hasText: '127.0.0.1' });
  await expect(row).toContainText('Ready', { timeout: 20_000 });
  await expect(row).toContainText('2 pages');
  await expect(row).toContainText('re-crawled weekly');

  const box = browser.getByRole('form', { name: 'Test the knowledge base' });
  await box.getByRole('textbox', { name: 'Question' }).fill('What does the service plan cost?');
  await box.getByRole('button', { name: 'Search' }).click();
  await expect(browser.getByLabel('Retrieved passages')).toContainText('129 euros');
});
