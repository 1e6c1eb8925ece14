import { type APIRequestContext, expect } from '@playwright/test';
import { E2E_TWILIO } from './constants.ts';

/**
 * The TWILIO messaging account of the Twilio fake's number, configured with the fake's AccountSid. An account
 * is unique by (type, page id), so a second spec or test (or a retry) gets the same account back: the create
 * answers 409 and the existing one is saved with this name and token instead.
 */
export async function e2eTwilioAccount(api: APIRequestContext, pageName: string): Promise<number> {
  const fields = { type: 'TWILIO', accessToken: E2E_TWILIO.authToken, pageId: E2E_TWILIO.number, pageName };
  let saved = await api.post('/api/admin/messaging-accounts/create-edit', { data: fields });
  if (saved.status() === 409) {
    const accounts = (await (await api.get('/api/admin/messaging-accounts/list')).json()) as { id: number; type: string; pageId: string }[];
    const existing = accounts.find((a) => a.type === 'TWILIO' && a.pageId === E2E_TWILIO.number);
    expect(existing, 'the account the 409 named').toBeDefined();
    saved = await api.post('/api/admin/messaging-accounts/create-edit', { data: { ...fields, id: existing!.id } });
  }
  expect(saved.status(), await saved.text()).toBe(200);
  const id = (await saved.json()).messagingAccount.id as number;
  const config = await api.post(`/api/admin/messaging-accounts/${id}/config`, {
    headers: { 'content-type': 'text/plain' },
    data: JSON.stringify({ accountSid: E2E_TWILIO.accountSid }),
  });
  expect(config.status(), await config.text()).toBe(200);
  return id;
}
