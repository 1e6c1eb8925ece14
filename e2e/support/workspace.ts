import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, type Browser, expect, type Page } from '@playwright/test';
import { demoTypeId, registerUser, uniqueDigits, uniqueEmail, signInAs } from './fixtures.ts';
import { DESKTOP } from './viewport.ts';

/** The team workspace specs' set-up (issue 24): an SMS prospect, a granted teammate, an axe scan. */

export const unique = () => uniqueDigits(9);

/** An SMS gateway account (ADMIN session of `request`) and a prospect's simulated SMS on it. */
export async function smsProspect(request: APIRequestContext, phone: string, text: string) {
  const deviceId = `device-${unique()}`;
  const created = await request.post('/api/admin/messaging-accounts/create-edit', {
    data: { type: 'SMS_GATEWAY', pageId: deviceId, pageName: `SMS line ${deviceId}`, accessToken: `token-${deviceId}`, conversationTypeId: await demoTypeId(request) },
  });
  expect(created.status(), await created.text()).toBeLessThan(300);
  const accountId = (await created.json()).messagingAccount.id as number;
  const config = await request.post(`/api/admin/messaging-accounts/${accountId}/config`, {
    data: JSON.stringify({ baseUrl: 'http://127.0.0.1:9/3rdparty/v1', signingKey: 'e2e-signing-key' }),
    headers: { 'content-type': 'application/json' },
  });
  expect(config.status(), await config.text()).toBe(200);
  const id = unique();
  const sent = await request.post('/api/admin/webhook-simulation/sms-gateway', {
    headers: { origin: `http://localhost:${process.env.E2E_PORT ?? 3100}` },
    data: { deviceId, event: 'sms:received', id, payload: { message: text, phoneNumber: phone, messageId: `sim-${id}`, receivedAt: new Date().toISOString() } },
  });
  expect(sent.status(), await sent.text()).toBeLessThan(300);
  let uuid = '';
  let conversationId = 0;
  await expect
    .poll(async () => {
      const found = await request.get('/api/admin/conversation/by-prospect', { params: { messagingAccountId: accountId, externalId: phone } });
      if (found.status() !== 200) return '';
      ({ uuid, id: conversationId } = await found.json());
      return uuid;
    })
    .not.toBe('');
  return { accountId, uuid, conversationId };
}

export async function teammate(browser: Browser, accountId: number, adminRequest: APIRequestContext) {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const user = await registerUser(page.request, uniqueEmail('teammate'));
  const grant = await adminRequest.post('/api/admin/user-messaging-accounts/create', { data: { userEmail: user.email, messagingAccountId: accountId } });
  expect(grant.status(), await grant.text()).toBe(201);
  await signInAs(page, user.email, user.password);
  return { context, page, email: user.email };
}

export async function expectNoSeriousAxe(page: Page) {
  await page.waitForTimeout(250); // Mantine's transitions settle; axe must see the final colours.
  const result = await new AxeBuilder({ page }).analyze();
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
}

