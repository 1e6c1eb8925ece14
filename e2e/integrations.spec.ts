import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { expect, request as playwrightRequest, test } from '@playwright/test';
import { signInAsAdmin, openFromAdminHello } from './support/fixtures.ts';

/** Issue 27: an ADMIN creates an API key (shown once), subscribes a receiver, sees its deliveries and resends one. */

let server: Server;
let hookUrl = '';
const received: { headers: IncomingHttpHeaders; body: { id: string; type: string } }[] = [];

test.beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(body) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook-${Date.now()}`;
});
test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('API keys and webhooks from /admin/hello', async ({ page, baseURL }) => {
  await signInAsAdmin(page);
  await openFromAdminHello(page, 'Integrations');
  await expect(page.getByRole('heading', { name: 'Integrations', level: 1 })).toBeVisible();

  // A key with one scope, shown once.
  const keyForm = page.getByRole('form', { name: 'Create an API key' });
  const name = `E2E Zapier ${Date.now()}`;
  await keyForm.getByRole('textbox', { name: 'Key name' }).fill(name);
  await keyForm.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByTestId('api-key-created');
  await expect(shown).toBeVisible();
  const key = await shown.getByRole('textbox', { name: 'New API key' }).inputValue();
  expect(key).toMatch(/^sak_/);

  // A plain HTTP client (no cookie) uses it within its scope.
  const client = await playwrightRequest.newContext({ baseURL });
  const listed = await client.get('/api/conversation/list', { headers: { authorization: `Bearer ${key}` } });
  expect(listed.status()).toBe(200);
  const refused = await client.post('/api/conversation/new', { headers: { authorization: `Bearer ${key}` }, data: { conversationTypeId: 1 } });
  expect(refused.status()).toBe(403);

  // After a reload only its prefix is left.
  await page.reload();
  const keys = page.getByRole('table', { name: 'API keys' });
  const row = keys.getByRole('row').filter({ hasText: name });
  await expect(row).toContainText(key.slice(0, 10));
  await expect(page.getByText(key)).toHaveCount(0);

  // Subscribe the receiver and send a test event.
  const hookForm = page.getByRole('form', { name: 'Subscribe an endpoint' });
  await hookForm.getByRole('textbox', { name: 'Endpoint URL' }).fill(hookUrl);
  await hookForm.getByRole('button', { name: 'Subscribe' }).click();
  await expect(page.getByTestId('webhook-created').getByRole('textbox', { name: 'Signing secret' })).toHaveValue(/^whsec_/);
  const endpoint = page.getByRole('article', { name: `Endpoint ${hookUrl}` });
  await endpoint.getByRole('button', { name: 'Send test event' }).click();
  const deliveries = endpoint.getByRole('table', { name: `Recent deliveries to ${hookUrl}` });
  // The endpoint listens to every event, and other specs' conversations may add theirs: look at the test events.
  const testRows = deliveries.getByRole('row').filter({ hasText: 'webhook.test' });
  const testEvents = () => received.filter((r) => r.body.type === 'webhook.test');
  await expect(testRows.first()).toContainText('DELIVERED');
  await expect(testRows.first()).toContainText('200');
  expect(testEvents()).toHaveLength(1);

  // Resend it: same event id, a second delivery row.
  await deliveries.getByRole('button', { name: /^Resend webhook\.test/ }).first().click();
  await expect(testRows).toHaveCount(2);
  await expect(testRows.first()).toContainText('DELIVERED');
  await expect.poll(() => testEvents().length).toBe(2);
  const [firstSent, resent] = testEvents();
  expect(resent.headers['x-webhook-id']).toBe(firstSent.headers['x-webhook-id']);
  expect(String(firstSent.headers['x-webhook-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

  // The toasts of the writes above are the app's, not this screen's; the pointer leaves the last button it clicked.
  await page.mouse.move(0, 0);
  const axe = await new AxeBuilder({ page }).exclude('[data-admin-html]').exclude('.mantine-Notification-root').analyze();
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} ${n.failureSummary ?? ''}`).join(' | ')}`)).toEqual([]);

  // Revoke the key: refused at once.
  await row.getByRole('button', { name: `Revoke ${name}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText('Revoked');
  expect((await client.get('/api/conversation/list', { headers: { authorization: `Bearer ${key}` } })).status()).toBe(401);
  await client.dispose();
});
