import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { receiveProspectMessage, sendHumanMessage } from '../../agent/agent.service.ts';
import { outbox, userMessagingAccounts } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { readConversationDetail } from '../../test/conversation-requests.ts';
import { type AccountConversationSeed, at, buildAccountConversation, buildConversation } from '../../test/conversation-factories.ts';
import { mentionedTokens, searchTsQuery } from './workspace.service.ts';

/** The team's workspace (issue 24): assignee, state, snooze, search, notes, authors, contact, notifications. */

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const alice = useUser(t);
const bob = useUser(t);
const stranger = useUser(t);

const prospectConversation = (seed?: AccountConversationSeed) => buildAccountConversation(t.ctx, seed);

const patch = (id: number, body: unknown, as?: string) => t.request({ method: 'PATCH', url: `/api/conversation/${id}`, payload: body as object, as });
const detail = (uuid: string, as: string) => readConversationDetail(t, uuid, as);
const list = async (query: string, as: string) => {
  const res = await t.request({ method: 'GET', url: `/api/conversation/list?limit=100&${query}`, as });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { conversations: { uuid: string; assignee: string | null; state: string; needsHuman: boolean; lastMessage: { author?: unknown } | null }[] };
};
const uuids = (body: { conversations: { uuid: string }[] }) => body.conversations.map((c) => c.uuid);

describe('PATCH /api/conversation/{id}: assignee, state, snooze', () => {
  it('assigns to a granted teammate (notified), shows it in the detail and list, and filters by assignee', async () => {
    const { conversation } = await prospectConversation({ grant: [alice.id, bob.id] });
    const res = await patch(conversation.id, { assigneeEmail: bob.email }, alice.cookie);
    expect(res.statusCode, res.body).toBe(200);
    expect((await detail(conversation.uuid, alice.cookie)).assignee).toBe(bob.email);

    const row = (await list(`uuid=${conversation.uuid}`, admin.cookie)).conversations[0];
    expect(row).toMatchObject({ assignee: bob.email, state: 'open' });
    expect(uuids(await list('assignee=me', bob.cookie))).toContain(conversation.uuid);
    expect(uuids(await list(`assignee=${encodeURIComponent(bob.email)}`, admin.cookie))).toContain(conversation.uuid);
    expect(uuids(await list('assignee=none', admin.cookie))).not.toContain(conversation.uuid);
    expect(uuids(await list('assignee=me', alice.cookie))).not.toContain(conversation.uuid);

    const notes = await t.request({ method: 'GET', url: '/api/notifications', as: bob.cookie });
    expect(notes.json().notifications[0]).toMatchObject({ kind: 'assigned', byEmail: alice.email, conversationUuid: conversation.uuid, read: false });
    expect(notes.json().unread).toBeGreaterThan(0);
    await t.request({ method: 'POST', url: '/api/notifications/read', as: bob.cookie });
    expect((await t.request({ method: 'GET', url: '/api/notifications', as: bob.cookie })).json().unread).toBe(0);

    const assignees = await t.request({ method: 'GET', url: `/api/conversation/${conversation.id}/assignees`, as: alice.cookie });
    const emails = assignees.json().map((a: { email: string }) => a.email);
    expect(emails).toEqual(expect.arrayContaining([alice.email, bob.email, admin.email]));
    expect(emails).not.toContain(stranger.email);
    expect((await t.request({ method: 'GET', url: `/api/conversation/${conversation.id}/assignees`, as: stranger.cookie })).statusCode).toBe(404);

    expect((await patch(conversation.id, { assigneeEmail: null }, alice.cookie)).statusCode).toBe(200);
    expect((await detail(conversation.uuid, alice.cookie)).assignee).toBeNull();
    expect(uuids(await list('assignee=none', admin.cookie))).toContain(conversation.uuid);
  });

  it('refuses an assignee who may not work on it (400), a stranger (404), anonymous (401), a bad body (400)', async () => {
    const { conversation } = await prospectConversation({ grant: [alice.id] });
    const refused = await patch(conversation.id, { assigneeEmail: stranger.email }, alice.cookie);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('ASSIGNEE_NOT_ALLOWED');
    expect((await patch(conversation.id, { assigneeEmail: 'nobody@example.com' }, admin.cookie)).json().code).toBe('ASSIGNEE_NOT_ALLOWED');
    expect((await patch(conversation.id, { state: 'resolved' }, stranger.cookie)).statusCode).toBe(404);
    expect((await patch(conversation.id, { state: 'resolved' })).statusCode).toBe(401);
    expect((await patch(conversation.id, { state: 'closed' }, admin.cookie)).statusCode).toBe(400);
    expect((await patch(conversation.id, { snoozedUntil: 'tomorrow' }, admin.cookie)).statusCode).toBe(400);
    expect((await patch(999_999, { state: 'resolved' }, admin.cookie)).statusCode).toBe(404);
  });

  it('resolves, and the prospect writing again reopens it; snoozes until a time; filters by state', async () => {
    const { conversation } = await prospectConversation();
    expect((await patch(conversation.id, { state: 'resolved' }, admin.cookie)).statusCode).toBe(200);
    const resolved = await detail(conversation.uuid, admin.cookie);
    expect(resolved).toMatchObject({ state: 'resolved', snoozedUntil: null });
    expect(uuids(await list('state=resolved', admin.cookie))).toContain(conversation.uuid);
    expect(uuids(await list('state=open', admin.cookie))).not.toContain(conversation.uuid);

    await receiveProspectMessage(t.ctx, conversation.id, 'One more question');
    expect((await detail(conversation.uuid, admin.cookie)).state).toBe('open');

    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect((await patch(conversation.id, { snoozedUntil: until }, admin.cookie)).statusCode).toBe(200);
    expect((await detail(conversation.uuid, admin.cookie)).snoozedUntil).toBe(until);
    expect(uuids(await list('state=snoozed', admin.cookie))).toContain(conversation.uuid);
    expect(uuids(await list('state=open', admin.cookie))).not.toContain(conversation.uuid);
    await receiveProspectMessage(t.ctx, conversation.id, 'Hello?');
    const back = await detail(conversation.uuid, admin.cookie);
    expect(back).toMatchObject({ state: 'open', snoozedUntil: null });
  });

  it('needs a person until a teammate replies or resolves it', async () => {
    const { conversation } = await prospectConversation();
    await patch(conversation.id, { phase: -2 }, admin.cookie);
    expect(uuids(await list('needsPerson=true', admin.cookie))).toContain(conversation.uuid);
    await sendHumanMessage(t.ctx, conversation.id, 'I can help with that', { id: admin.id, email: admin.email, role: 'ADMIN' });
    expect(uuids(await list('needsPerson=true', admin.cookie))).not.toContain(conversation.uuid);
    expect((await list(`uuid=${conversation.uuid}`, admin.cookie)).conversations[0].needsHuman).toBe(false);
  });
});

describe('GET /api/conversation/list: q and channel', () => {
  it('finds by prospect name, by phone digits, by message words; filters by channel; a NORMAL user only granted ones', async () => {
    const sms = await prospectConversation({ type: 'SMS_GATEWAY', externalId: '+15550104477', grant: [alice.id], text: 'Do you install solar panels?' });
    const ig = await prospectConversation({ name: 'Zebulon Quartz', text: 'hi' });
    expect(uuids(await list('q=zebulon', admin.cookie))).toEqual([ig.conversation.uuid]);
    expect(uuids(await list('q=Zebu', admin.cookie))).toEqual([ig.conversation.uuid]);
    expect(uuids(await list(`q=${encodeURIComponent('555 0104')}`, admin.cookie))).toEqual([sms.conversation.uuid]);
    expect(uuids(await list(`q=${encodeURIComponent('+1 555-010-4477')}`, admin.cookie))).toEqual([sms.conversation.uuid]);
    expect(uuids(await list('q=solar%20panels', admin.cookie))).toContain(sms.conversation.uuid);
    expect(uuids(await list('q=solar%20panels', alice.cookie))).toContain(sms.conversation.uuid);
    expect(uuids(await list('q=zebulon', alice.cookie))).toEqual([]);
    expect(uuids(await list('q=zebulon', stranger.cookie))).toEqual([]);
    expect(uuids(await list('q=zebulon&channel=INSTAGRAM', admin.cookie))).toEqual([ig.conversation.uuid]);
    expect(uuids(await list('q=zebulon&channel=SMS_GATEWAY', admin.cookie))).toEqual([]);
    expect(uuids(await list(`q=solar&messagingAccount=${sms.account.id}`, admin.cookie))).toEqual([sms.conversation.uuid]);
    expect(uuids(await list('q=%3F%3F', admin.cookie))).toEqual([]);

    const bad = await t.request({ method: 'GET', url: '/api/conversation/list?channel=FAX', as: admin.cookie });
    expect(bad.statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: '/api/conversation/list?assignee=someone', as: admin.cookie })).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: '/api/conversation/list?q=x' })).statusCode).toBe(401);
  });

  it('builds prefix queries from words only', () => {
    expect(searchTsQuery("Ana's  café 42")).toBe("'ana':* & 's':* & 'café':* & '42':*");
    expect(searchTsQuery('!!')).toBeNull();
  });
});

describe('notes', () => {
  it('adds a private note (never a message, never sent), shows it in the detail, notifies the @mentioned teammate', async () => {
    const { conversation } = await prospectConversation({ grant: [alice.id, bob.id] });
    const res = await t.request({
      method: 'POST',
      url: `/api/conversation/${conversation.id}/notes`,
      payload: { text: `@${bob.email} can you call them tomorrow?` },
      as: alice.cookie,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ text: `@${bob.email} can you call them tomorrow?`, authorEmail: alice.email });
    const seen = await detail(conversation.uuid, bob.cookie);
    expect(seen.notes).toEqual([res.json()]);
    expect(seen.messages.map((m: { message: string }) => m.message)).toEqual(['Hello there']);
    expect(await t.ctx.db.select().from(outbox).where(eq(outbox.conversationId, conversation.id))).toEqual([]);
    const bobs = (await t.request({ method: 'GET', url: '/api/notifications', as: bob.cookie })).json();
    expect(bobs.notifications[0]).toMatchObject({ kind: 'mentioned', byEmail: alice.email, conversationUuid: conversation.uuid });
  });

  it('re-checks grants: a teammate whose grant was removed no longer sees (nor counts) its notifications', async () => {
    const { conversation, account } = await prospectConversation({ grant: [alice.id, bob.id] });
    expect((await patch(conversation.id, { assigneeEmail: bob.email }, alice.cookie)).statusCode).toBe(200);
    const before = (await t.request({ method: 'GET', url: '/api/notifications', as: bob.cookie })).json();
    expect(before.notifications.map((n: { conversationUuid: string }) => n.conversationUuid)).toContain(conversation.uuid);

    await t.ctx.db
      .delete(userMessagingAccounts)
      .where(and(eq(userMessagingAccounts.userId, bob.id), eq(userMessagingAccounts.messagingAccountId, account.id)));
    const after = (await t.request({ method: 'GET', url: '/api/notifications', as: bob.cookie })).json();
    expect(after.notifications.map((n: { conversationUuid: string }) => n.conversationUuid)).not.toContain(conversation.uuid);
    expect(after.unread).toBe(before.unread - 1);
  });

  it('mentions by the part before @ too', () => {
    expect(mentionedTokens('ping @bob and @carol@example.com.')).toEqual(['bob', 'carol@example.com']);
    expect(mentionedTokens('mail me at x@y.com')).toEqual([]);
  });

  it('refuses an empty note (400), a stranger (404), anonymous (401); a web chat visitor never sees notes', async () => {
    const { conversation } = await prospectConversation({ grant: [alice.id] });
    const url = `/api/conversation/${conversation.id}/notes`;
    expect((await t.request({ method: 'POST', url, payload: { text: '  ' }, as: alice.cookie })).statusCode).toBe(400);
    expect((await t.request({ method: 'POST', url, payload: { text: 'x' }, as: stranger.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url, payload: { text: 'x' } })).statusCode).toBe(401);

    const webChat = await buildConversation(t.ctx, { messages: [{ role: 'PROSPECT', message: 'hi', dateSent: at(1) }] });
    const added = await t.request({ method: 'POST', url: `/api/conversation/${webChat.id}/notes`, payload: { text: 'internal' }, as: admin.cookie });
    expect(added.statusCode).toBe(201);
    const visitor = await t.request({ method: 'GET', url: `/api/conversation/${webChat.uuid}` });
    expect(visitor.json().notes).toEqual([]);
    expect(visitor.body).not.toContain('internal');
    expect((await t.request({ method: 'POST', url: `/api/conversation/${webChat.id}/notes`, payload: { text: 'x' }, as: alice.cookie })).statusCode).toBe(403);
  });
});

describe('authors and contact', () => {
  it('marks each message with its author and the list preview with the real author', async () => {
    const { conversation } = await prospectConversation({ grant: [alice.id] });
    await sendHumanMessage(t.ctx, conversation.id, 'A person here', { id: alice.id, email: alice.email, role: 'NORMAL' });
    const seen = await detail(conversation.uuid, alice.cookie);
    expect(seen.messages.map((m: { author: unknown }) => m.author)).toEqual([{ kind: 'prospect' }, { kind: 'person', email: alice.email }]);
    const row = (await list(`uuid=${conversation.uuid}`, alice.cookie)).conversations[0];
    expect(row.lastMessage?.author).toEqual({ kind: 'person', email: alice.email });
  });

  it('shows an SMS prospect by phone number, with every conversation of the person on any phone channel', async () => {
    const phone = '+15550107788';
    const sms = await prospectConversation({ type: 'SMS_GATEWAY', externalId: phone, grant: [alice.id] });
    const wa = await prospectConversation({ type: 'WHATSAPP', externalId: phone.slice(1) });
    const seenByAdmin = await detail(sms.conversation.uuid, admin.cookie);
    expect(seenByAdmin.contact).toMatchObject({ phone, name: null });
    await detail(wa.conversation.uuid, admin.cookie);
    const again = await detail(sms.conversation.uuid, admin.cookie);
    expect(again.contact.conversations.map((c: { uuid: string }) => c.uuid).sort()).toEqual([sms.conversation.uuid, wa.conversation.uuid].sort());
    expect(again.contact.handles.map((h: { channel: string }) => h.channel).sort()).toEqual(['SMS_GATEWAY', 'WHATSAPP']);
    // A NORMAL user granted only the SMS account sees only that conversation and handle.
    const seenByAlice = await detail(sms.conversation.uuid, alice.cookie);
    expect(seenByAlice.contact.conversations.map((c: { uuid: string }) => c.uuid)).toEqual([sms.conversation.uuid]);
    expect(seenByAlice.contact.handles).toHaveLength(1);
    // A web chat has no contact.
    const webChat = await buildConversation(t.ctx, {});
    expect((await detail(webChat.uuid, admin.cookie)).contact).toBeNull();
  });
});
