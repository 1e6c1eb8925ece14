import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { channelMessages, conversations, messages } from '../db/schema/index.ts';
import { insertMessage } from '../conversations/conversation-store.ts';
import { usePlaybook, useUser } from '../test/use-test-app.ts';
import { FB_TOKEN, IG_LOGIN_TOKEN, IG_TOKEN, unique, useChannelApp } from '../test/use-channel-app.ts';
import {
  buildChannelAccount,
  settle,
  conversationOfProspect,
  metaMessagePayload,
  postMeta,
  postSmsGateway,
  postTwilioSms,
  smsGatewayEvent,
  whatsAppPayload,
} from '../test/channel-factories.ts';

/**
 * Rebuild history (spec §2.13, §7.6, issue #8): Instagram and Messenger threads are read back from the Graph
 * API conversations endpoint (following both paging levels) and replace the stored messages, keeping roles and
 * dates; channels without a history API answer 409; Graph errors 502 without any token; ADMIN only.
 */

const MINUTE = 60_000;

describe('POST /api/admin/conversation/{id}/messages/rebuild', () => {

  const { t, graph, igGraph } = useChannelApp();
  const admin = useUser(t, 'ADMIN');
  const normal = useUser(t);
  const playbook = usePlaybook(t, { initialMessage: null, followUpPrompt: null });

  const rebuild = (conversationId: number | string, as = admin.cookie) =>
    t.request({ method: 'POST', url: `/api/admin/conversation/${conversationId}/messages/rebuild`, as });

  /** A real (signed) prospect conversation on a Meta account, answered once by the AI. */
  async function metaConversation(type: 'INSTAGRAM' | 'FACEBOOK', token: string, config: Record<string, unknown> = {}) {
    const account = await buildChannelAccount(t.ctx, { type, pageId: unique(type), token, config, conversationTypeId: playbook.id });
    const user = unique('user');
    const mid = unique('mid');
    await postMeta(t, metaMessagePayload(type === 'INSTAGRAM' ? 'instagram' : 'page', account.pageId, user, mid, 'Hi'));
    await settle(t.ctx);
    const found = (await conversationOfProspect(t.ctx, account.id, user))!;
    return { account, user, mid, conversationId: found.conversation.id };
  }

  /** The thread at Meta: five messages over two conversations, paged two by two. */
  function thread(pageId: string, user: string, firstMid: string) {
    const start = Date.now() - 60 * MINUTE;
    const at = (minutes: number) => new Date(start + minutes * MINUTE);
    return [
      { id: firstMid, message: 'Hi', fromId: user, createdTime: at(0) },
      { id: unique('m'), message: 'Hello! How can I help?', fromId: pageId, createdTime: at(1) },
      { id: unique('m'), message: 'Do you ship to Spain?', fromId: user, createdTime: at(2) },
      { id: unique('m'), message: 'Yes, in 3 days.', fromId: pageId, createdTime: at(3) },
      { id: unique('m'), message: 'Great, thanks', fromId: user, createdTime: at(4) },
    ];
  }

  async function storedMessages(conversationId: number) {
    return t.ctx.db
      .select({ role: messages.role, message: messages.message, dateSent: messages.dateSent, externalId: messages.externalId })
      .from(messages)
      .where(eq(messages.conversationId, conversationId))
      .orderBy(messages.dateSent, messages.id);
  }

  it('replaces an Instagram thread with the Graph one (both paging levels), keeping roles and dates', async () => {
    const { account, user, mid, conversationId } = await metaConversation('INSTAGRAM', IG_TOKEN);
    const all = thread(account.pageId, user, mid);
    graph.addConversation(account.pageId, user, all.slice(0, 3));
    graph.addConversation(account.pageId, user, all.slice(3));
    graph.addConversation(account.pageId, 'someone-else', [{ id: unique('m'), message: 'not this one', fromId: 'someone-else', createdTime: new Date() }]);

    const res = await rebuild(conversationId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ messages: 5 });
    const stored = await storedMessages(conversationId);
    expect(stored.map((m) => [m.role, m.message, m.externalId])).toEqual(all.map((m) => [m.fromId === user ? 'PROSPECT' : 'AGENT', m.message, m.id]));
    expect(stored.map((m) => m.dateSent?.getTime())).toEqual(all.map((m) => Math.floor(m.createdTime.getTime() / 1000) * 1000));
    const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, conversationId));
    expect(conversation.messagesCount).toBe(5);

    const reads = graph.requests.filter((r) => r.method === 'GET' && /conversations|messages$/.test(r.path));
    expect(reads[0]).toMatchObject({
      path: `/v27.0/${account.pageId}/conversations`,
      query: { platform: 'instagram', user_id: user, fields: 'messages{id,message,from,created_time}' },
      token: IG_TOKEN,
    });
    // Two conversations (list paging) and a second page of the first conversation's messages edge.
    expect(reads.map((r) => r.path.split('/').pop())).toEqual(['conversations', 'messages', 'conversations']);
    expect(reads.every((r) => r.token === IG_TOKEN)).toBe(true);

    // A redelivery of a rebuilt message is still recognised: nothing new is stored.
    await postMeta(t, metaMessagePayload('instagram', account.pageId, user, all[2].id, 'Do you ship to Spain?'));
    await settle(t.ctx);
    expect(await storedMessages(conversationId)).toHaveLength(5);
  });

  it("keeps SYSTEM lines and who wrote each message (a person's, from our UI or Meta's inbox, stays written by a human)", async () => {
    const { account, user, mid, conversationId } = await metaConversation('INSTAGRAM', IG_TOKEN);
    const [{ uuid }] = await t.ctx.db.select({ uuid: conversations.uuid }).from(conversations).where(eq(conversations.id, conversationId));
    const written = await t.request({ method: 'POST', url: `/api/conversation/${uuid}/written-message`, as: admin.cookie, payload: { message: 'A person here.' } });
    expect(written.statusCode).toBe(200);
    await settle(t.ctx);
    await insertMessage(t.ctx.db, { conversationId, role: 'SYSTEM', message: 'Call note: interested.' });
    // Our two sends (the AI's reply, then the person's), in the order of their messages.
    const sends = await t.ctx.db
      .select({ externalId: channelMessages.externalId })
      .from(channelMessages)
      .where(and(eq(channelMessages.conversationId, conversationId), eq(channelMessages.direction, 'OUT')))
      .orderBy(channelMessages.messageId);
    expect(sends).toHaveLength(2);
    const start = Date.now() - 10 * MINUTE;
    graph.addConversation(account.pageId, user, [
      { id: mid, message: 'Hi', fromId: user, createdTime: new Date(start) },
      { id: sends[0].externalId, message: 'The AI reply', fromId: account.pageId, createdTime: new Date(start + MINUTE) },
      { id: sends[1].externalId, message: 'A person here.', fromId: account.pageId, createdTime: new Date(start + 2 * MINUTE) },
      { id: unique('m'), message: "Written in Meta's inbox", fromId: account.pageId, createdTime: new Date(start + 3 * MINUTE) },
    ]);
    const res = await rebuild(conversationId);
    expect(res.statusCode).toBe(200);
    const stored = await t.ctx.db
      .select({ role: messages.role, message: messages.message, writtenByHuman: messages.writtenByHuman })
      .from(messages)
      .where(eq(messages.conversationId, conversationId))
      .orderBy(messages.dateSent, messages.id);
    expect(stored).toEqual([
      { role: 'PROSPECT', message: 'Hi', writtenByHuman: false },
      { role: 'AGENT', message: 'The AI reply', writtenByHuman: false },
      { role: 'AGENT', message: 'A person here.', writtenByHuman: true },
      { role: 'AGENT', message: "Written in Meta's inbox", writtenByHuman: true },
      { role: 'SYSTEM', message: 'Call note: interested.', writtenByHuman: false },
    ]);
    const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, conversationId));
    expect(conversation.messagesCount).toBe(5);
  });

  it('reads a Messenger thread with platform=messenger, and an Instagram Login account on INSTAGRAM_GRAPH_URL', async () => {
    const messenger = await metaConversation('FACEBOOK', FB_TOKEN);
    graph.addConversation(messenger.account.pageId, messenger.user, thread(messenger.account.pageId, messenger.user, messenger.mid));
    expect((await rebuild(messenger.conversationId)).json()).toEqual({ messages: 5 });
    expect(graph.requests.find((r) => r.path.endsWith('/conversations'))!.query.platform).toBe('messenger');

    const ig = await metaConversation('INSTAGRAM', IG_LOGIN_TOKEN, { login: 'instagram' });
    igGraph.addConversation(ig.account.pageId, ig.user, thread(ig.account.pageId, ig.user, ig.mid).slice(0, 2));
    expect((await rebuild(ig.conversationId)).json()).toEqual({ messages: 2 });
    expect(igGraph.requests.some((r) => r.path === `/v27.0/${ig.account.pageId}/conversations` && r.token === IG_LOGIN_TOKEN)).toBe(true);
  });

  it('answers 502 with Meta\'s reason (no token) when the Graph API refuses, and changes nothing', async () => {
    const { conversationId } = await metaConversation('INSTAGRAM', IG_TOKEN);
    const before = await storedMessages(conversationId);
    graph.failNext('history', { code: 190, message: `Error validating access token ${IG_TOKEN}: Session has expired.` });
    const res = await rebuild(conversationId);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ error: expect.stringContaining('Session has expired'), code: 'CHANNEL_ERROR' });
    expect(res.body).not.toContain(IG_TOKEN);
    expect(await storedMessages(conversationId)).toEqual(before);
  });

  it('answers 409 with a sentence for WhatsApp, Twilio SMS, the SMS gateway and web chats', async () => {
    const wa = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: unique('PN'), token: 'wa', conversationTypeId: playbook.id });
    await postMeta(t, whatsAppPayload(wa.pageId, '34600000111', `wamid.${unique('w')}`, 'Hola'));
    const tw = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550109999', token: 'tw-token', config: { accountSid: 'AC9' }, conversationTypeId: playbook.id });
    await postTwilioSms(t, 'tw-token', { MessageSid: unique('SM'), From: '+15557779999', To: tw.pageId, Body: 'Hi' });
    const gw = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', pageId: unique('dev'), token: 'a:b', config: { baseUrl: 'http://127.0.0.1:9', signingKey: 'rk' }, conversationTypeId: playbook.id });
    await postSmsGateway(t, 'rk', smsGatewayEvent(gw.pageId, '+34600000222', unique('evt'), 'Hola'));
    await settle(t.ctx);
    const cases = [
      [wa.id, '34600000111', 'WhatsApp offers no message history to rebuild from: the stored messages are all there is.'],
      [tw.id, '+15557779999', 'Twilio SMS offers no message history to rebuild from: the stored messages are all there is.'],
      [gw.id, '+34600000222', 'The SMS gateway offers no message history to rebuild from: the stored messages are all there is.'],
    ] as const;
    for (const [accountId, sender, sentence] of cases) {
      const { conversation } = (await conversationOfProspect(t.ctx, accountId, sender))!;
      const res = await rebuild(conversation.id);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: sentence, code: 'NO_CHANNEL_HISTORY' });
    }
    const [web] = await t.ctx.db.insert(conversations).values({ conversationTypeId: playbook.id }).returning();
    const webRes = await rebuild(web.id);
    expect(webRes.statusCode).toBe(409);
    expect(webRes.json().error).toMatch(/web chat/);
  });

  it('answers 404 for an unknown conversation, 400 for a bad id, 401 anonymous and 403 for a NORMAL user', async () => {
    const { conversationId } = await metaConversation('INSTAGRAM', IG_TOKEN);
    expect((await rebuild(99_999_999)).statusCode).toBe(404);
    expect((await rebuild('x1')).statusCode).toBe(400);
    expect((await t.request({ method: 'POST', url: `/api/admin/conversation/${conversationId}/messages/rebuild` })).statusCode).toBe(401);
    expect((await rebuild(conversationId, normal.cookie)).statusCode).toBe(403);
    expect(graph.requests.filter((r) => r.path.endsWith('/conversations'))).toHaveLength(0);
  });
});
