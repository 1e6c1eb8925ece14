import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { channelMessages } from '../db/schema/index.ts';
import { usePlaybook, useUser } from '../test/use-test-app.ts';
import { FB_TOKEN, GATEWAY_LOGIN, GATEWAY_PASSWORD, IG_TOKEN, TWILIO_SID, TWILIO_TOKEN, useChannelApp } from '../test/use-channel-app.ts';
import {
  buildChannelAccount,
  buildSmsGatewayAccount,
  conversationOfProspect,
  metaMessagePayload,
  metaReceipt,
  postMeta,
  postSmsGateway,
  postTwilioSms,
  postTwilioStatus,
  PUBLIC_URL,
  settle,
  smsGatewayEvent,
  smsGatewayReport,
  unansweredErrors,
} from '../test/channel-factories.ts';

/**
 * Delivery states on the channels besides WhatsApp (issue 24): Messenger and Instagram receipts (watermarks and
 * mids), Twilio status callbacks and the SMS gateway's reports. Late, repeated and out-of-order reports never
 * move a message backwards (read beats delivered beats sent).
 */
describe('delivery states of replies on Messenger, Instagram, Twilio and the SMS gateway', () => {
  let seq = 0;
  const unique = (prefix: string) => `${prefix}-${(seq += 1)}`;
  const { t, twilio, gateway } = useChannelApp();
  const admin = useUser(t, 'ADMIN');
  const playbook = usePlaybook(t, { initialMessage: null, followUpPrompt: null });

  /** The delivery shown on the first AI reply of the prospect's conversation. */
  const replyDelivery = async (accountId: number, prospect: string) => {
    const found = (await conversationOfProspect(t.ctx, accountId, prospect))!;
    const res = await t.request({ method: 'GET', url: `/api/conversation/${found.conversation.uuid}`, as: admin.cookie });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { messages: { role: string; delivery?: unknown }[] }).messages.find((m) => m.role === 'AGENT')?.delivery;
  };
  /** The channel id of the reply we sent to the prospect. */
  const sentId = async (accountId: number, prospect: string) => {
    const found = (await conversationOfProspect(t.ctx, accountId, prospect))!;
    const [row] = await t.ctx.db
      .select({ externalId: channelMessages.externalId })
      .from(channelMessages)
      .where(and(eq(channelMessages.conversationId, found.conversation.id), eq(channelMessages.direction, 'OUT')));
    expect(row).toBeDefined();
    return { externalId: row!.externalId, conversationId: found.conversation.id };
  };
  const meta = async (payload: unknown) => {
    expect((await postMeta(t, payload)).statusCode).toBe(200);
    await settle(t.ctx);
  };

  it('Messenger: a watermark before our send changes nothing; delivered by mid, read by watermark; a late delivery keeps read', async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'FACEBOOK', pageId: unique('PAGE'), token: FB_TOKEN, conversationTypeId: playbook.id });
    const before = Date.now() - 60_000;
    await meta(metaMessagePayload('page', account.pageId, 'psid-a', unique('mid'), 'Hello'));
    await meta(metaMessagePayload('page', account.pageId, 'psid-b', unique('mid'), 'Hello too'));
    const { externalId } = await sentId(account.id, 'psid-a');
    expect(await replyDelivery(account.id, 'psid-a')).toEqual({ state: 'sent' });

    await meta(metaReceipt('page', account.pageId, 'psid-a', { read: { watermark: before } }));
    expect(await replyDelivery(account.id, 'psid-a')).toEqual({ state: 'sent' });

    await meta(metaReceipt('page', account.pageId, 'psid-a', { delivery: { mids: [externalId], watermark: before } }));
    expect(await replyDelivery(account.id, 'psid-a')).toEqual({ state: 'delivered' });

    // Another prospect's receipt never touches this one's messages, and vice versa.
    await meta(metaReceipt('page', account.pageId, 'psid-a', { read: { watermark: Date.now() } }));
    expect(await replyDelivery(account.id, 'psid-a')).toEqual({ state: 'read' });
    expect(await replyDelivery(account.id, 'psid-b')).toEqual({ state: 'sent' });

    await meta(metaReceipt('page', account.pageId, 'psid-a', { delivery: { mids: [externalId], watermark: Date.now() } }));
    expect(await replyDelivery(account.id, 'psid-a')).toEqual({ state: 'read' });

    // A delivery watermark alone (no mids: older Messenger clients) covers every send up to it.
    await meta(metaReceipt('page', account.pageId, 'psid-b', { delivery: { watermark: Date.now() } }));
    expect(await replyDelivery(account.id, 'psid-b')).toEqual({ state: 'delivered' });
  });

  it('Instagram: messaging_seen names the message read', async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', pageId: unique('IG'), token: IG_TOKEN, conversationTypeId: playbook.id });
    await meta(metaMessagePayload('instagram', account.pageId, 'igsid-seen', unique('mid'), 'Hi'));
    const { externalId } = await sentId(account.id, 'igsid-seen');
    await meta(metaReceipt('instagram', account.pageId, 'igsid-seen', { read: { mid: externalId } }));
    expect(await replyDelivery(account.id, 'igsid-seen')).toEqual({ state: 'read' });
  });

  it('Twilio: every send names the status callback; signed callbacks move it on, never back; undelivered is failed with the reason, recorded once', async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550109001', token: TWILIO_TOKEN, config: { accountSid: TWILIO_SID }, conversationTypeId: playbook.id });
    await postTwilioSms(t, TWILIO_TOKEN, { MessageSid: unique('SMin'), AccountSid: TWILIO_SID, From: '+15557779001', To: account.pageId, Body: 'Hi' });
    await settle(t.ctx);
    expect(twilio.requests[0].form.StatusCallback).toBe(`${PUBLIC_URL}/api/twilio/sms-status`);
    const { externalId, conversationId } = await sentId(account.id, '+15557779001');
    expect(externalId).toBe(twilio.messages[0].sid);
    const status = async (MessageStatus: string, extra: Record<string, string> = {}) => {
      const res = await postTwilioStatus(t, TWILIO_TOKEN, { MessageSid: externalId, SmsSid: externalId, AccountSid: TWILIO_SID, From: account.pageId, To: '+15557779001', MessageStatus, ...extra });
      expect(res.statusCode, res.body).toBe(204);
      await settle(t.ctx);
    };

    const forged = await postTwilioStatus(t, TWILIO_TOKEN, { MessageSid: externalId, From: account.pageId, MessageStatus: 'delivered' }, 'not-the-auth-token');
    expect(forged.statusCode).toBe(403);
    await settle(t.ctx);
    expect(await replyDelivery(account.id, '+15557779001')).toEqual({ state: 'sent' });

    await status('queued');
    await status('delivered');
    await status('sent'); // late
    await status('delivered'); // repeated
    expect(await replyDelivery(account.id, '+15557779001')).toEqual({ state: 'delivered' });

    await status('undelivered', { ErrorCode: '30003' });
    await status('undelivered', { ErrorCode: '30003' });
    const failed = { state: 'failed', error: 'Twilio could not deliver the SMS: the phone is unreachable (switched off or out of coverage).' };
    expect(await replyDelivery(account.id, '+15557779001')).toEqual(failed);
    const errors = await unansweredErrors(t.ctx, conversationId);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ type: 'twilio', code: '30003', message: failed.error });
  });

  it('SMS gateway: sms:sent, sms:delivered (current payload) move it on, a late sms:sent does not; sms:failed carries its reason', async () => {
    const account = await buildSmsGatewayAccount(t.ctx, { baseUrl: gateway.baseUrl, login: GATEWAY_LOGIN, password: GATEWAY_PASSWORD, signingKey: 'gw-dlr' }, playbook.id);
    for (const prospect of ['+34600909001', '+34600909002']) {
      await postSmsGateway(t, 'gw-dlr', smsGatewayEvent(account.pageId, prospect, unique('evt'), 'Hola'));
    }
    await settle(t.ctx);
    const first = await sentId(account.id, '+34600909001');
    const second = await sentId(account.id, '+34600909002');
    const report = async (event: Parameters<typeof smsGatewayReport>[1], messageId: string, recipient: string, extra: Record<string, unknown> = {}, id = unique('dlr')) => {
      const res = await postSmsGateway(t, 'gw-dlr', smsGatewayReport(account.pageId, event, id, messageId, recipient, extra));
      expect(res.statusCode, res.body).toBe(200);
      await settle(t.ctx);
    };

    await report('sms:delivered', first.externalId, '+34600909001');
    await report('sms:sent', first.externalId, '+34600909001');
    expect(await replyDelivery(account.id, '+34600909001')).toEqual({ state: 'delivered' });

    await report('sms:failed', second.externalId, '+34600909002', { reason: 'RESULT_ERROR_NO_SERVICE' });
    expect(await replyDelivery(account.id, '+34600909002')).toEqual({ state: 'failed', error: 'The phone could not send the SMS: RESULT_ERROR_NO_SERVICE.' });
    expect(await unansweredErrors(t.ctx, second.conversationId)).toEqual([expect.objectContaining({ type: 'sms-gateway', message: 'The phone could not send the SMS: RESULT_ERROR_NO_SERVICE.' })]);
  });
});
