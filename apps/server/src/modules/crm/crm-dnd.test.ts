import { eq } from 'drizzle-orm';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { conversations } from '../../db/schema/index.ts';
import { buildPlaybook } from '../../test/agent-factories.ts';
import { buildChannelAccount, conversationOfProspect, postSmsGateway, settle, smsGatewayEvent } from '../../test/channel-factories.ts';
import { startGhlFake } from '../../test/fakes/ghl-fake.ts';
import { startSmsGatewayFake } from '../../test/fakes/sms-gateway-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';

/** An opt-out reaches the GoHighLevel contact's DND (issue 23), and a person's clear turns it off again. */
describe('CRM DND write of an opt-out', () => {
  const ghl = useFake(() => startGhlFake());
  const gateway = useFake(() => startSmsGatewayFake({ login: 'gw', password: 'gw-password-0123456789' }));
  const t = useTestApp({ env: () => ({ ...ghl.env() }) });
  const admin = useUser(t, 'ADMIN');
  afterAll(async () => {
    await Promise.all([ghl.close(), gateway.close()]);
  });
  beforeEach(() => {
    ghl.contactUpdates.length = 0;
  });

  it('STOP on SMS sets SMS and Call DND active on the contact; clearing with a note sets them inactive', async () => {
    const type = await buildPlaybook(t.ctx, { initialMessage: null, config: { crm: 'GHL' } });
    const account = await buildChannelAccount(t.ctx, {
      type: 'SMS_GATEWAY',
      pageId: 'device-dnd',
      token: 'gw:gw-password-0123456789',
      config: { baseUrl: gateway.baseUrl, signingKey: 'k-dnd' },
      conversationTypeId: type.id,
    });
    const phone = '+15554440001';
    await postSmsGateway(t, 'k-dnd', smsGatewayEvent(account.pageId, phone, 'evt-dnd-1', 'Hi'));
    await settle(t.ctx);
    const found = (await conversationOfProspect(t.ctx, account.id, phone))!;
    await t.ctx.db.update(conversations).set({ crmContactId: 'ct-03' }).where(eq(conversations.id, found.conversation.id));

    await postSmsGateway(t, 'k-dnd', smsGatewayEvent(account.pageId, phone, 'evt-dnd-2', 'STOP'));
    await settle(t.ctx);
    expect(ghl.contactUpdates).toEqual([
      {
        contactId: 'ct-03',
        body: { dndSettings: { SMS: { status: 'active', message: 'Opted out (sms)' }, Call: { status: 'active', message: 'Opted out (sms)' } } },
      },
    ]);

    const res = await t.request({
      method: 'POST',
      url: `/api/conversation/${found.conversation.id}/do-not-contact/clear`,
      as: admin.cookie,
      payload: { note: 'Asked by phone to hear from us again.' },
    });
    expect(res.statusCode).toBe(200);
    await settle(t.ctx);
    expect(ghl.contactUpdates[1]).toMatchObject({ contactId: 'ct-03', body: { dndSettings: { SMS: { status: 'inactive' }, Call: { status: 'inactive' } } } });
  });
  it('an all-channels opt-out (optOutScope "all") sets every DND channel active; START sets them inactive', async () => {
    const type = await buildPlaybook(t.ctx, { initialMessage: null, config: { crm: 'GHL', optOutScope: 'all' } });
    const account = await buildChannelAccount(t.ctx, {
      type: 'SMS_GATEWAY',
      pageId: 'device-dnd-all',
      token: 'gw:gw-password-0123456789',
      config: { baseUrl: gateway.baseUrl, signingKey: 'k-dnd-all' },
      conversationTypeId: type.id,
    });
    const phone = '+15554440002';
    await postSmsGateway(t, 'k-dnd-all', smsGatewayEvent(account.pageId, phone, 'evt-dnd-all-1', 'Hi'));
    await settle(t.ctx);
    const found = (await conversationOfProspect(t.ctx, account.id, phone))!;
    await t.ctx.db.update(conversations).set({ crmContactId: 'ct-04' }).where(eq(conversations.id, found.conversation.id));
    await postSmsGateway(t, 'k-dnd-all', smsGatewayEvent(account.pageId, phone, 'evt-dnd-all-2', 'STOP'));
    await settle(t.ctx);
    const active = ghl.contactUpdates.find((u) => u.contactId === 'ct-04')!;
    expect(Object.keys((active.body as { dndSettings: object }).dndSettings).sort()).toEqual(['Call', 'Email', 'FB', 'GMB', 'SMS', 'WhatsApp']);
    expect(Object.values((active.body as { dndSettings: Record<string, { status: string }> }).dndSettings).every((d) => d.status === 'active')).toBe(true);
    await postSmsGateway(t, 'k-dnd-all', smsGatewayEvent(account.pageId, phone, 'evt-dnd-all-3', 'START'));
    await settle(t.ctx);
    expect(ghl.contactUpdates.at(-1)).toMatchObject({ contactId: 'ct-04', body: { dndSettings: { WhatsApp: { status: 'inactive' }, SMS: { status: 'inactive' } } } });
  });
});
