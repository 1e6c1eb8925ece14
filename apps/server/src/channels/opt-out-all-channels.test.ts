import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sendFollowUp } from '../agent/follow-up.ts';
import { conversationTypes, doNotContact, prospects } from '../db/schema/index.ts';
import { ensureContact } from '../modules/conversations/workspace.service.ts';
import { OPT_OUT_CONFIRMATION, RESUBSCRIBE_CONFIRMATION } from '../conversations/opt-out.ts';
import { buildPlaybook } from '../test/agent-factories.ts';
import {
  buildChannelAccount,
  buildSmsGatewayAccount,
  conversationOfProspect,
  metaMessagePayload,
  postMeta,
  postSmsGateway,
  settle,
  smsGatewayEvent,
  whatsAppPayload,
} from '../test/channel-factories.ts';
import { GATEWAY_LOGIN, GATEWAY_PASSWORD, IG_TOKEN, nextNumber, TWILIO_SID, TWILIO_TOKEN, unique, useChannelApp, WA_TOKEN } from '../test/use-channel-app.ts';
import { useUser } from '../test/use-test-app.ts';

/**
 * The "all channels" opt-out (issue 23, docs/compliance.md `optOutScope`): with the setting, an SMS STOP
 * stops WhatsApp, Instagram and calls to the same person (contact); without it, only the number.
 */
describe('opt-out for every channel of the person', () => {
  const { t, graph, twilio, gateway } = useChannelApp();
  const admin = useUser(t, 'ADMIN');

  /** One person on SMS, WhatsApp (same number) and Instagram (linked to the same contact, as a merge would). */
  async function personOnThreeChannels(config: Record<string, unknown>, digits: string) {
    const type = await buildPlaybook(t.ctx, { initialMessage: null, followUpPrompt: 'Nudge them.', config });
    const smsAccount = await buildSmsGatewayAccount(t.ctx, { baseUrl: gateway.baseUrl, login: GATEWAY_LOGIN, password: GATEWAY_PASSWORD, signingKey: 'gw-all' }, type.id);
    const wa = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: unique('PNID'), token: WA_TOKEN, conversationTypeId: type.id });
    const ig = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', pageId: unique('IG'), token: IG_TOKEN, conversationTypeId: type.id });
    const phone = `+${digits}`;
    const igsid = unique('igsid');
    await postSmsGateway(t, 'gw-all', smsGatewayEvent(smsAccount.pageId, phone, unique('evt'), 'Hi'));
    await postMeta(t, whatsAppPayload(wa.pageId, digits, `wamid.${unique('w')}`, 'Hello on WhatsApp'));
    await postMeta(t, metaMessagePayload('instagram', ig.pageId, igsid, unique('mid'), 'Hello on Instagram'));
    await settle(t.ctx);
    const smsConv = (await conversationOfProspect(t.ctx, smsAccount.id, phone))!;
    const waConv = (await conversationOfProspect(t.ctx, wa.id, digits))!;
    const igConv = (await conversationOfProspect(t.ctx, ig.id, igsid))!;
    const contactId = (await ensureContact(t.ctx, smsConv.prospect.id))!;
    expect(await ensureContact(t.ctx, waConv.prospect.id)).toBe(contactId); // same number, same person
    await t.ctx.db.update(prospects).set({ contactId }).where(eq(prospects.id, igConv.prospect.id));
    graph.reset();
    gateway.requests.length = 0;
    return { type, smsAccount, wa, ig, phone, digits, igsid, smsConv, waConv, igConv };
  }

  const detail = (uuid: string) => t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: admin.cookie });
  const call = async (phone: string, typeId: number) => {
    const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: `+1555010${String(1000 + nextNumber()).slice(-4)}`, token: TWILIO_TOKEN, config: { accountSid: TWILIO_SID }, conversationTypeId: typeId });
    await t.ctx.db.update(conversationTypes).set({ messagingAccountId: account.id }).where(eq(conversationTypes.id, typeId));
    return t.request({ method: 'POST', url: `/api/admin/call/${encodeURIComponent(phone)}`, as: admin.cookie, payload: { conversationTypeId: typeId, contactId: null, useRealtimeApi: false } });
  };

  it('optOutScope "all": an SMS STOP stops WhatsApp, Instagram and calls; doNotContact shows {all}; START clears every channel', async () => {
    const p = await personOnThreeChannels({ optOutScope: 'all' }, '15557230001');
    await postSmsGateway(t, 'gw-all', smsGatewayEvent(p.smsAccount.pageId, p.phone, unique('evt'), 'STOP'));
    await settle(t.ctx);
    expect(gateway.requests.map((r) => (r.body as { textMessage: { text: string } }).textMessage.text)).toEqual([OPT_OUT_CONFIRMATION]);

    for (const conv of [p.smsConv, p.waConv, p.igConv]) {
      const dnc = (await detail(conv.conversation.uuid)).json().doNotContact;
      expect(Object.keys(dnc)).toEqual(['all']);
      expect(dnc.all).toMatchObject({ how: 'keyword "STOP" on sms', since: expect.any(String) });
    }
    // The prospect writes again on WhatsApp and Instagram: no agent reply; no follow-up; a person is refused.
    await postMeta(t, whatsAppPayload(p.wa.pageId, p.digits, `wamid.${unique('w')}`, 'What was the price?'));
    await postMeta(t, metaMessagePayload('instagram', p.ig.pageId, p.igsid, unique('mid'), 'And on Instagram?'));
    await settle(t.ctx);
    expect(await sendFollowUp(t.ctx, p.waConv.conversation.id, { manual: false })).toBe('skipped');
    expect(await sendFollowUp(t.ctx, p.igConv.conversation.id, { manual: false })).toBe('skipped');
    const written = await t.request({ method: 'POST', url: `/api/conversation/${p.igConv.conversation.uuid}/written-message`, as: admin.cookie, payload: { message: 'One more offer' } });
    expect(written.statusCode).toBe(409);
    expect(written.json()).toMatchObject({ code: 'OPTED_OUT', error: expect.stringMatching(/keyword "STOP" on sms, for every channel/) });
    await settle(t.ctx);
    expect(graph.sends()).toHaveLength(0);
    const refused = await call(p.phone, p.type.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'OPTED_OUT' });
    expect(twilio.calls).toHaveLength(0);

    // START on SMS ends the opt-out everywhere; the audit keeps every row with its end.
    await postSmsGateway(t, 'gw-all', smsGatewayEvent(p.smsAccount.pageId, p.phone, unique('evt'), 'START'));
    await settle(t.ctx);
    expect(gateway.requests.map((r) => (r.body as { textMessage: { text: string } }).textMessage.text)).toEqual([OPT_OUT_CONFIRMATION, RESUBSCRIBE_CONFIRMATION]);
    for (const conv of [p.smsConv, p.waConv, p.igConv]) expect((await detail(conv.conversation.uuid)).json().doNotContact).toBeNull();
    const rows = await t.ctx.db.select().from(doNotContact).where(eq(doNotContact.how, 'keyword "STOP" on sms'));
    const ours = rows.filter((r) => [p.phone, `instagram:${p.ig.id}:${p.igsid}`].includes(r.address));
    expect(ours.map((r) => [r.address, r.channel, r.clearedAt !== null]).sort()).toEqual(
      [
        [p.phone, 'all', true],
        [`instagram:${p.ig.id}:${p.igsid}`, 'all', true],
      ].sort(),
    );
  });

  it('default scope: an SMS STOP stops the number (SMS, WhatsApp, calls) but not the Instagram handle', async () => {
    const p = await personOnThreeChannels({}, '15557230002');
    await postSmsGateway(t, 'gw-all', smsGatewayEvent(p.smsAccount.pageId, p.phone, unique('evt'), 'STOP'));
    await settle(t.ctx);
    expect(Object.keys((await detail(p.waConv.conversation.uuid)).json().doNotContact)).toEqual(['sms']);
    expect((await detail(p.igConv.conversation.uuid)).json().doNotContact).toBeNull();
    await postMeta(t, metaMessagePayload('instagram', p.ig.pageId, p.igsid, unique('mid'), 'Still interested'));
    await settle(t.ctx);
    expect(graph.sends()).toHaveLength(1); // the agent answers on Instagram
    expect((await call(p.phone, p.type.id)).statusCode).toBe(409);
  });
});
