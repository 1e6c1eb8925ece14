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

  /** An SMS prospect (gateway device `device-<name>`) whose conversation carries a GoHighLevel contact id. */
  async function prospectWithCrmContact(config: Record<string, unknown>, name: string, phone: string, crmContactId: string) {
    const type = await buildPlaybook(t.ctx, { initialMessage: null, config });
    const account = await buildChannelAccount(t.ctx, {
      type: 'SMS_GATEWAY',
      pageId: `device-${name}`,
      token: 'gw:gw-password-0123456789',
      config: { baseUrl: gateway.baseUrl, signingKey: `k-${name}` },
      conversationTypeId: type.id,
    });
    let seq = 0;
    const sms = async (text: string) => {
      await postSmsGateway(t, `k-${name}`, smsGatewayEvent(account.pageId, phone, `evt-${name}-${(seq += 1)}`, text));
      await settle(t.ctx);
    };
    await sms('Hi');
    const found = (await conversationOfProspect(t.ctx, account.id, phone))!;
    await t.ctx.db.update(conversations).set({ crmContactId }).where(eq(conversations.id, found.conversation.id));
    return { found, sms };
  }

  it('STOP on SMS sets SMS and Call DND active on the contact; clearing with a note sets them inactive', async () => {
    const { found, sms } = await prospectWithCrmContact({ crm: 'GHL' }, 'dnd', '+15554440001', 'ct-03');
    await sms('STOP');
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
    const { sms } = await prospectWithCrmContact({ crm: 'GHL', optOutScope: 'all' }, 'dnd-all', '+15554440002', 'ct-04');
    await sms('STOP');
    const active = ghl.contactUpdates.find((u) => u.contactId === 'ct-04')!;
    expect(Object.keys((active.body as { dndSettings: object }).dndSettings).sort()).toEqual(['Call', 'Email', 'FB', 'GMB', 'SMS', 'WhatsApp']);
    expect(Object.values((active.body as { dndSettings: Record<string, { status: string }> }).dndSettings).every((d) => d.status === 'active')).toBe(true);
    await sms('START');
    expect(ghl.contactUpdates.at(-1)).toMatchObject({ contactId: 'ct-04', body: { dndSettings: { WhatsApp: { status: 'inactive' }, SMS: { status: 'inactive' } } } });
  });
});
