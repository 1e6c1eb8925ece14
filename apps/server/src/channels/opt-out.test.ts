import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sendFollowUp } from '../agent/follow-up.ts';
import { conversationTypes, outbox } from '../db/schema/index.ts';
import { recordCarrierOptOut } from './opt-out-words.ts';
import { OPT_OUT_CONFIRMATION, optOutIntent, RESUBSCRIBE_CONFIRMATION } from '../conversations/opt-out.ts';
import { AppError } from '../lib/errors.ts';
import { DEFAULT_AI_DISCLOSURE } from '@sales-agent/shared/schemas/conversation-type-config';
import { buildPlaybook } from '../test/agent-factories.ts';
import {
  deliverWaiting,
  buildChannelAccount,
  conversationOfProspect,
  metaMessagePayload,
  postMeta,
  postSmsGateway,
  postTwilioSms,
  makeJobsDue,
  PUBLIC_URL,
  settle,
  smsGatewayEvent,
  whatsAppPayload,
  buildSmsGatewayAccount,
} from '../test/channel-factories.ts';
import { usePlaybook, useUser } from '../test/use-test-app.ts';
import { GATEWAY_LOGIN, GATEWAY_PASSWORD, IG_TOKEN, nextNumber, TWILIO_SID, TWILIO_TOKEN, unique, useChannelApp, WA_TOKEN } from '../test/use-channel-app.ts';

/**
 * Opt-out (issue 23) through the channel fakes: a STOP word or a plain-language opt-out gets one
 * confirmation and then no agent reply, no follow-up and no call; START re-subscribes; the flag shows in the
 * conversation detail and only a person with a note clears it.
 */

describe('recognising opt-out words', () => {
  it.each(['STOP', 'stop', 'Stop.', 'UNSUBSCRIBE', 'END', 'QUIT', 'CANCEL', 'STOPALL', ' stop! '])('"%s" is an opt-out keyword', (text) => {
    expect(optOutIntent(text)?.kind).toBe('stop');
  });
  it.each(['START', 'unstop'])('"%s" re-subscribes', (text) => expect(optOutIntent(text)?.kind).toBe('start'));
  it.each(["Please don't text me again", 'stop calling me', 'Remove me from your list', 'no more messages please', 'leave me alone'])(
    'plain language "%s" is an opt-out',
    (text) => expect(optOutIntent(text)).toEqual({ kind: 'stop', how: 'plain-language opt-out' }),
  );
  it.each(['Can you stop by tomorrow?', 'When does the offer end?', 'I want to cancel my old plan and buy yours', "Don't call it a deal yet"])(
    '"%s" is not an opt-out',
    (text) => expect(optOutIntent(text)).toBeNull(),
  );
});

describe('opt-out on inbound channels', () => {
  const { t, graph, twilio, gateway } = useChannelApp();
  const admin = useUser(t, 'ADMIN');
  const normal = useUser(t);
  const playbook = usePlaybook(t, { initialMessage: null, followUpPrompt: 'Nudge them.' });

  const smsAccount = () =>
    buildSmsGatewayAccount(t.ctx, { baseUrl: gateway.baseUrl, login: GATEWAY_LOGIN, password: GATEWAY_PASSWORD, signingKey: 'gw-sign' }, playbook.id);
  const sms = async (deviceId: string, from: string, text: string) => {
    expect((await postSmsGateway(t, 'gw-sign', smsGatewayEvent(deviceId, from, unique('evt'), text))).statusCode).toBe(200);
    await settle(t.ctx);
  };
  const gatewayTexts = () => gateway.requests.map((r) => (r.body as { textMessage: { text: string } }).textMessage.text);
  const detail = async (uuid: string, cookie = admin.cookie) => t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: cookie });
  const twilioCallSetup = () =>
    buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550100077', token: TWILIO_TOKEN, config: { accountSid: TWILIO_SID }, conversationTypeId: playbook.id });

  it.each(['STOP', 'UNSUBSCRIBE', 'END', 'QUIT', 'CANCEL', 'STOPALL', "please don't text me again"])(
    'SMS "%s": one confirmation, then no reply, no follow-up, no call',
    async (word) => {
      const account = await smsAccount();
      const phone = `+1555${String(2000000 + nextNumber()).padStart(7, '0')}`;
      await sms(account.pageId, phone, 'Hi, tell me more');
      expect(gateway.requests).toHaveLength(1); // the agent's answer
      await sms(account.pageId, phone, word);
      expect(gatewayTexts().slice(1)).toEqual([OPT_OUT_CONFIRMATION]);
      await sms(account.pageId, phone, 'Are you still there?');
      await sms(account.pageId, phone, word);
      expect(gatewayTexts().slice(1)).toEqual([OPT_OUT_CONFIRMATION]);

      const found = (await conversationOfProspect(t.ctx, account.id, phone))!;
      expect(found.messages.filter((m) => m.role === 'SYSTEM').map((m) => m.message)[0]).toMatch(/^Opted out/);
      expect(await sendFollowUp(t.ctx, found.conversation.id, { manual: false })).toBe('skipped');
      await expect(sendFollowUp(t.ctx, found.conversation.id, { manual: true })).rejects.toMatchObject({ status: 409, code: 'OPTED_OUT' } satisfies Partial<AppError>);

      const res = await detail(found.conversation.uuid);
      expect(res.statusCode).toBe(200);
      const dnc = res.json<{ doNotContact: Record<string, { since: string; how: string }> }>().doNotContact;
      expect(Object.keys(dnc)).toEqual(['sms']);
      expect(dnc.sms.how).toMatch(word.includes(' ') ? /plain-language/ : new RegExp(`keyword "${word}"`));
      expect(new Date(dnc.sms.since).getTime()).toBeLessThanOrEqual(Date.now());

      // An SMS STOP also stops calls to the number, from any account.
      const type = await buildPlaybook(t.ctx, { initialMessage: null });
      const twilioAccount = await twilioCallSetup();
      await t.ctx.db.update(conversationTypes).set({ messagingAccountId: twilioAccount.id }).where(eq(conversationTypes.id, type.id));
      const call = await t.request({
        method: 'POST',
        url: `/api/admin/call/${encodeURIComponent(phone)}`,
        as: admin.cookie,
        payload: { conversationTypeId: type.id, contactId: null, useRealtimeApi: false },
      });
      expect(call.statusCode).toBe(409);
      expect(call.json()).toMatchObject({ code: 'OPTED_OUT', error: expect.stringMatching(/opted out/) });
      expect(twilio.calls).toHaveLength(0);
    },
  );

  it('START re-subscribes: one confirmation, and the agent answers again', async () => {
    const account = await smsAccount();
    const phone = '+15553330001';
    await sms(account.pageId, phone, 'STOP');
    await sms(account.pageId, phone, 'START');
    expect(gatewayTexts()).toEqual([OPT_OUT_CONFIRMATION, RESUBSCRIBE_CONFIRMATION]);
    await sms(account.pageId, phone, 'Tell me more');
    expect(gateway.requests).toHaveLength(3);
    const found = (await conversationOfProspect(t.ctx, account.id, phone))!;
    expect((await detail(found.conversation.uuid)).json().doNotContact).toBeNull();
  });

  it('the inbox list marks an opted-out prospect', async () => {
    const account = await smsAccount();
    await sms(account.pageId, '+15553330011', 'STOP');
    await sms(account.pageId, '+15553330012', 'Hello');
    const list = await t.request({ method: 'GET', url: '/api/conversation/list?limit=100', as: admin.cookie });
    expect(list.statusCode).toBe(200);
    const items = list.json<{ conversations: { uuid: string; doNotContact: boolean }[] }>().conversations;
    const stopped = (await conversationOfProspect(t.ctx, account.id, '+15553330011'))!.conversation.uuid;
    const open = (await conversationOfProspect(t.ctx, account.id, '+15553330012'))!.conversation.uuid;
    expect(items.find((i) => i.uuid === stopped)!.doNotContact).toBe(true);
    expect(items.find((i) => i.uuid === open)!.doNotContact).toBe(false);
  });

  it('WhatsApp plain-language opt-out and Instagram STOP: one confirmation, no agent reply', async () => {
    const wa = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: unique('PNID'), token: WA_TOKEN, conversationTypeId: playbook.id });
    await postMeta(t, whatsAppPayload(wa.pageId, '34600111999', `wamid.${unique('w')}`, 'Stop messaging me, thanks'));
    await settle(t.ctx);
    const ig = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', pageId: unique('IG'), token: IG_TOKEN, conversationTypeId: playbook.id });
    await postMeta(t, metaMessagePayload('instagram', ig.pageId, 'igsid-stop', unique('mid'), 'STOP'));
    await settle(t.ctx);
    await postMeta(t, metaMessagePayload('instagram', ig.pageId, 'igsid-stop', unique('mid'), 'hello?'));
    await settle(t.ctx);
    const texts = graph.sends().map((s) => (s.body.text as { body?: string } | undefined)?.body ?? (s.body.message as { text: string }).text);
    expect(texts).toEqual([OPT_OUT_CONFIRMATION, OPT_OUT_CONFIRMATION]);
    const waFound = (await conversationOfProspect(t.ctx, wa.id, '34600111999'))!;
    expect(Object.keys((await detail(waFound.conversation.uuid)).json().doNotContact)).toEqual(['whatsapp']);
  });

  it("Twilio's 21610 (Advanced Opt-Out) on a send records the opt-out: no reply afterwards", async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550100088', token: TWILIO_TOKEN, config: { accountSid: TWILIO_SID }, conversationTypeId: playbook.id });
    twilio.failNext('Messages', { status: 400, code: 21610 });
    await postTwilioSms(t, TWILIO_TOKEN, { MessageSid: unique('SM'), AccountSid: TWILIO_SID, From: '+15557779999', To: account.pageId, Body: 'Hi', NumMedia: '0' });
    await settle(t.ctx);
    const found = (await conversationOfProspect(t.ctx, account.id, '+15557779999'))!;
    expect((await detail(found.conversation.uuid)).json().doNotContact).toMatchObject({ sms: { how: 'Twilio Advanced Opt-Out (error 21610)' } });
    twilio.requests.length = 0;
    await postTwilioSms(t, TWILIO_TOKEN, { MessageSid: unique('SM'), AccountSid: TWILIO_SID, From: '+15557779999', To: account.pageId, Body: 'Hello?', NumMedia: '0' });
    await settle(t.ctx);
    expect(twilio.requests).toHaveLength(0);
  });

  it('an opt-out between the turn and the send: the reply written before the STOP never goes out, the confirmation does', async () => {
    const account = await smsAccount();
    const phone = '+15553330021';
    // The turn passes its start check and commits its reply; the gateway refuses the first send (transient),
    // so the reply waits out its backoff in the outbox while the prospect writes STOP.
    gateway.failNext(503, 'Service Unavailable');
    await sms(account.pageId, phone, 'Hi, tell me more');
    expect(gateway.messages).toHaveLength(0);
    const [waiting] = await t.ctx.db.select().from(outbox).where(eq(outbox.messagingAccountId, account.id));
    expect(waiting).toMatchObject({ status: 'PENDING', attempts: 1 });
    await sms(account.pageId, phone, 'STOP');
    await deliverWaiting(t.ctx);
    expect(gateway.messages.map((m) => m.text)).toEqual([OPT_OUT_CONFIRMATION]);
    const rows = await t.ctx.db.select().from(outbox).where(eq(outbox.messagingAccountId, account.id)).orderBy(outbox.id);
    expect(rows.map((r) => [r.status, r.errorCode])).toEqual([
      ['FAILED', 'OPTED_OUT'],
      ['SENT', null],
    ]);
    const found = (await conversationOfProspect(t.ctx, account.id, phone))!;
    expect(found.messages.some((m) => m.role === 'SYSTEM' && /^Not sent: the person opted out \(keyword "STOP" on sms\)/.test(m.message))).toBe(true);
  });

  it('an opt-out recorded on another channel (Twilio 21610 for the number) stops a reply already queued on the SMS gateway', async () => {
    const account = await smsAccount();
    const phone = '+15553330022';
    gateway.failNext(503, 'Service Unavailable');
    await sms(account.pageId, phone, 'Hi there');
    await recordCarrierOptOut(t.ctx, phone);
    await deliverWaiting(t.ctx);
    expect(gateway.messages).toHaveLength(0);
  });

  it('a person writing to an opted-out prospect gets 409 OPTED_OUT in words, and nothing is sent', async () => {
    const account = await smsAccount();
    const phone = '+15553330023';
    await sms(account.pageId, phone, 'STOP');
    const found = (await conversationOfProspect(t.ctx, account.id, phone))!;
    const before = gateway.messages.length;
    const res = await t.request({
      method: 'POST',
      url: `/api/conversation/${found.conversation.uuid}/written-message`,
      as: admin.cookie,
      payload: { message: 'Just one more offer!' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'OPTED_OUT', error: expect.stringMatching(/^Sending a message to this person is not allowed: this person opted out/) });
    await settle(t.ctx);
    expect(gateway.messages).toHaveLength(before);
    const after = (await conversationOfProspect(t.ctx, account.id, phone))!;
    expect(after.messages.some((m) => m.message === 'Just one more offer!')).toBe(false);
  });

  describe('GET /api/admin/compliance/opt-outs (audit)', () => {
    const list = (query: string, cookie?: string) => t.request({ method: 'GET', url: `/api/admin/compliance/opt-outs${query}`, as: cookie });

    it('lists opt-outs newest first with how, since, and who cleared them with which note; filters by active and address', async () => {
      const account = await smsAccount();
      await sms(account.pageId, '+15553339001', 'STOP');
      await sms(account.pageId, '+15553339002', 'leave me alone');
      const found = (await conversationOfProspect(t.ctx, account.id, '+15553339001'))!;
      const cleared = await t.request({
        method: 'POST',
        url: `/api/conversation/${found.conversation.id}/do-not-contact/clear`,
        as: admin.cookie,
        payload: { note: 'Asked by phone to hear from us again.' },
      });
      expect(cleared.statusCode).toBe(200);

      const res = await list('?address=555333900', admin.cookie);
      expect(res.statusCode).toBe(200);
      const body = res.json<{ items: Record<string, unknown>[]; total: number }>();
      expect(body.total).toBe(2);
      expect(body.items).toEqual([
        expect.objectContaining({ address: '+15553339002', channel: 'sms', how: 'plain-language opt-out', clearedAt: null, clearedBy: null, clearNote: null }),
        expect.objectContaining({
          address: '+15553339001',
          channel: 'sms',
          how: 'keyword "STOP"',
          clearedAt: expect.any(String),
          clearedBy: admin.email,
          clearNote: 'Asked by phone to hear from us again.',
        }),
      ]);
      const active = (await list('?active=true&address=555333900', admin.cookie)).json<{ items: { address: string }[] }>();
      expect(active.items.map((i) => i.address)).toEqual(['+15553339002']);
      const paged = (await list('?address=555333900&limit=1&offset=1', admin.cookie)).json<{ items: { address: string }[]; total: number }>();
      expect(paged).toMatchObject({ total: 2, items: [{ address: '+15553339001' }] });
    });

    it('401 anonymous, 403 for a non-admin, 400 for a bad query', async () => {
      expect((await list('')).statusCode).toBe(401);
      expect((await list('', normal.cookie)).statusCode).toBe(403);
      expect((await list('?limit=0', admin.cookie)).statusCode).toBe(400);
      expect((await list('?active=maybe', admin.cookie)).statusCode).toBe(400);
    });
  });

  describe('AI disclosure line', () => {
    it("the agent's first SMS reply starts with the default disclosure line, later replies do not; Instagram has none", async () => {
      const account = await smsAccount();
      await sms(account.pageId, '+15553330031', 'Hi, tell me more');
      await sms(account.pageId, '+15553330031', 'And the price?');
      const [first, second] = gatewayTexts();
      expect(first.startsWith(`${DEFAULT_AI_DISCLOSURE}\n`)).toBe(true);
      expect(first.length).toBeGreaterThan(DEFAULT_AI_DISCLOSURE.length + 1);
      expect(second).not.toContain(DEFAULT_AI_DISCLOSURE);
      const found = (await conversationOfProspect(t.ctx, account.id, '+15553330031'))!;
      expect(found.messages.find((m) => m.role === 'AGENT')!.message.startsWith(DEFAULT_AI_DISCLOSURE)).toBe(true);

      const ig = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', pageId: unique('IG'), token: IG_TOKEN, conversationTypeId: playbook.id });
      await postMeta(t, metaMessagePayload('instagram', ig.pageId, 'igsid-disclosure', unique('mid'), 'hello'));
      await settle(t.ctx);
      const igText = (graph.sends()[0].body.message as { text: string }).text;
      expect(igText).not.toContain(DEFAULT_AI_DISCLOSURE);
    });

    it("a type's own aiDisclosure text is used, and false turns it off", async () => {
      const custom = await buildPlaybook(t.ctx, { initialMessage: null, config: { aiDisclosure: 'Hi, I am Acme\'s AI assistant.' } });
      const off = await buildPlaybook(t.ctx, { initialMessage: null, config: { aiDisclosure: false } });
      const withCustom = await buildSmsGatewayAccount(t.ctx, { baseUrl: gateway.baseUrl, login: GATEWAY_LOGIN, password: GATEWAY_PASSWORD, signingKey: 'gw-sign' }, custom.id);
      await sms(withCustom.pageId, '+15553330032', 'Hello');
      expect(gatewayTexts()[0].startsWith("Hi, I am Acme's AI assistant.\n")).toBe(true);
      const withOff = await buildSmsGatewayAccount(t.ctx, { baseUrl: gateway.baseUrl, login: GATEWAY_LOGIN, password: GATEWAY_PASSWORD, signingKey: 'gw-sign' }, off.id);
      await sms(withOff.pageId, '+15553330033', 'Hello');
      expect(gatewayTexts()[1]).not.toContain('AI assistant');
    });
  });

  describe('POST /api/conversation/{id}/do-not-contact/clear', () => {
    const clear = (id: number, payload: unknown, cookie?: string) =>
      t.request({ method: 'POST', url: `/api/conversation/${id}/do-not-contact/clear`, payload: payload as object, as: cookie });

    it('clears only with a note (400 without), 401 anonymous, 404 for a user without the account or an unknown id, 409 when not opted out', async () => {
      const account = await smsAccount();
      const phone = '+15553330002';
      await sms(account.pageId, phone, 'STOP');
      const found = (await conversationOfProspect(t.ctx, account.id, phone))!;
      const id = found.conversation.id;
      expect((await clear(id, { note: 'They asked by phone.' })).statusCode).toBe(401);
      expect((await clear(id, { note: 'They asked by phone to be contacted again.' }, normal.cookie)).statusCode).toBe(404);
      expect((await clear(999999, { note: 'They asked by phone.' }, admin.cookie)).statusCode).toBe(404);
      const noNote = await clear(id, { note: ' ' }, admin.cookie);
      expect(noNote.statusCode).toBe(400);
      const ok = await clear(id, { note: 'They asked by phone to be contacted again.' }, admin.cookie);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ message: 'Opt-out cleared', doNotContact: null });
      expect((await detail(found.conversation.uuid)).json().doNotContact).toBeNull();
      expect((await clear(id, { note: 'Again.' }, admin.cookie)).statusCode).toBe(409);
    });
  });
});
