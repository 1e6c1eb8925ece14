import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { demoTypeId } from './support/fixtures.ts';

/**
 * Issue 12 item 4: the widget on a plain static page of another origin (a server this test starts on its own
 * port): launcher → panel with the chat in an iframe → a message → the same conversation after a page load.
 */

let host: Server;
let hostUrl = '';

test.beforeAll(async ({ baseURL }) => {
  // 127.0.0.1 on another port: a different origin from the product's localhost:E2E_PORT.
  host = createServer((req, res) => {
    const typeId = new URL(req.url ?? '/', 'http://x').searchParams.get('type') ?? '';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dental clinic</title></head><body><h1>Smile Studio</h1><p>Book a cleaning today.</p>
<script src="${baseURL}/widget.js" data-conversation-type="${typeId}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => host?.close(resolve));
});

const chatFrame = (page: Page) => page.frameLocator('iframe[title="Chat with us"]');

async function conversationUuid(page: Page): Promise<string> {
  const frame = page.frames().find((f) => f.url().includes('/embed/') && f.url().includes('/conversation/'));
  expect(frame, 'the iframe shows a conversation').toBeTruthy();
  return frame!.url().split('/conversation/')[1];
}

for (const viewport of [
  { name: 'desktop', width: 1366, height: 800 },
  { name: 'phone', width: 390, height: 844 },
]) {
  test(`the widget opens the chat from another origin and keeps the conversation across page loads (${viewport.name})`, async ({ page, request }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const typeId = await demoTypeId(request);
    await page.goto(`${hostUrl}/?type=${typeId}`);
    await expect(page.getByRole('heading', { name: 'Smile Studio' })).toBeVisible();

    const launcher = page.getByRole('button', { name: 'Chat with us' });
    await expect(launcher).toBeVisible();
    await expect(page.locator('iframe')).toHaveCount(0);
    await launcher.click();

    const panel = page.getByRole('dialog', { name: 'Chat with us' });
    await expect(panel).toBeVisible();
    const box = chatFrame(page).getByRole('textbox', { name: 'Message' });
    await expect(box).toBeVisible();
    await expect(page.getByRole('button', { name: 'Close chat' })).toBeFocused();

    if (viewport.name === 'phone') {
      // On a phone the panel takes the whole screen.
      const rect = await panel.boundingBox();
      expect(rect).toMatchObject({ x: 0, y: 0, width: viewport.width, height: viewport.height });
    }

    await box.fill('Do you have a slot on Friday?');
    await box.press('Enter');
    // The bubble, not the message box (which still holds the text while the send is in flight).
    await expect(chatFrame(page).getByRole('log', { name: 'Messages' }).getByText('Do you have a slot on Friday?', { exact: true })).toBeVisible();
    const uuid = await conversationUuid(page);

    // Another page load of the host site: the panel is still open and shows the same conversation.
    await page.reload();
    await expect(chatFrame(page).getByRole('textbox', { name: 'Message' })).toBeVisible();
    expect(await conversationUuid(page)).toBe(uuid);
    await expect(chatFrame(page).getByRole('log', { name: 'Messages' }).getByText('Do you have a slot on Friday?', { exact: true })).toBeVisible();

    // Closing returns focus to the launcher; the conversation stays for the next open.
    await page.getByRole('button', { name: 'Close chat' }).click();
    await expect(panel).toBeHidden();
    await expect(launcher).toBeFocused();
  });
}

test('only the widget and the embed pages may be framed by another site', async ({ request }) => {
  const typeId = await demoTypeId(request);
  const script = await request.get('/widget.js');
  expect(script.headers()['cross-origin-resource-policy']).toBe('cross-origin');
  const embed = await request.get(`/embed/${typeId}`);
  expect(embed.headers()['x-frame-options']).toBeUndefined();
  expect(embed.headers()['content-security-policy']).toContain('frame-ancestors *');
  const home = await request.get('/');
  expect(home.headers()['x-frame-options']).toBe('SAMEORIGIN');
  expect(home.headers()['content-security-policy']).toContain("frame-ancestors 'self'");
});

test('a long chat keeps the widget footer in view, and Escape while typing closes the widget (issue 24)', async ({ page, request }) => {
  await page.setViewportSize({ width: 1366, height: 800 });
  const typeId = await demoTypeId(request);
  await page.goto(`${hostUrl}/?type=${typeId}`);
  const launcher = page.getByRole('button', { name: 'Chat with us' });
  await launcher.click();
  const panel = page.getByRole('dialog', { name: 'Chat with us' });
  const box = chatFrame(page).getByRole('textbox', { name: 'Message' });
  const log = chatFrame(page).getByRole('log', { name: 'Messages' });
  // Four rounds: the demo playbook ends the conversation after six prospect messages.
  for (let i = 1; i <= 4; i += 1) {
    const text = `Question number ${i}: do you also have a slot on Friday afternoon or on Saturday morning?`;
    await box.fill(text);
    await box.press('Enter');
    await expect(log.getByText(text, { exact: true })).toBeVisible();
  }
  // The thread is taller than the panel now; the footer and the message box are both still on screen.
  const main = chatFrame(page).getByTestId('embed-main');
  expect(await main.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
  await expect(chatFrame(page).getByRole('button', { name: 'New conversation' })).toBeInViewport();
  await expect(box).toBeInViewport();

  // Typing, then Escape: the keys are the frame's, yet the widget closes and focus goes back to the launcher.
  await box.fill('Actually, never mind');
  await box.press('Escape');
  await expect(panel).toBeHidden();
  await expect(launcher).toBeFocused();
});
