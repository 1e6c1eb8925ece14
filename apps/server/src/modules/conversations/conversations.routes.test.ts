import type { EventEmitter } from 'node:events';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { conversations, messages, messagingAccounts, prospects } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { openEventStream } from '../../test/event-stream.ts';
import {
  at,
  buildConversation,
  buildConversationType,
  buildMessagingAccount,
  buildProspect,
  buildUnanswered,
  grantAccount,
} from '../../test/conversation-factories.ts';
import { pendingJobs } from '../../test/agent-factories.ts';
import { buildUser, type TestUser } from '../../test/factories.ts';
import { STREAMS_PER_CLIENT } from './conversation-events.ts';
import { scheduleTurn } from '../../agent/turn.job.ts';

let typeA: Awaited<ReturnType<typeof buildConversationType>>;
let typeB: Awaited<ReturnType<typeof buildConversationType>>;
let accountA: Awaited<ReturnType<typeof buildMessagingAccount>>;
let accountB: Awaited<ReturnType<typeof buildMessagingAccount>>;
let prospectA: Awaited<ReturnType<typeof buildProspect>>;
let prospectB: Awaited<ReturnType<typeof buildProspect>>;
/** conversations of prospectA (granted to `normal`), of prospectB (not granted), and web chats */
let ownA1: Awaited<ReturnType<typeof buildConversation>>;
let ownA2: Awaited<ReturnType<typeof buildConversation>>;
let otherB: Awaited<ReturnType<typeof buildConversation>>;
let web: Awaited<ReturnType<typeof buildConversation>>;

const msg = (role: 'PROSPECT' | 'AGENT', message: string, minute: number) => ({ role, message, dateSent: at(minute) });

// A generous count budget: exact totalPages even on a busy test machine.
const t = useTestApp({ env: { CONVERSATION_LIST_COUNT_BUDGET_MS: '60000' } });
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);
const stranger = useUser(t);
beforeAll(async () => {
  typeA = await buildConversationType(t.ctx, { title: 'Widgets playbook', phases: 3 });
  typeB = await buildConversationType(t.ctx, { title: 'Gadgets playbook', phases: 1 });
  accountA = await buildMessagingAccount(t.ctx, { pageName: 'Alpha page' });
  accountB = await buildMessagingAccount(t.ctx, { pageName: 'Beta page' });
  await grantAccount(t.ctx, normal.id, accountA.id);
  prospectA = await buildProspect(t.ctx, accountA.id);
  prospectB = await buildProspect(t.ctx, accountB.id);
  ownA1 = await buildConversation(t.ctx, {
    conversationTypeId: typeA.id,
    prospectId: prospectA.id,
    phase: 1,
    rating: 4,
    recordingDuration: 120,
    recordingUrl: 'https://files.example.com/a1.mp3',
    createdAt: at(10),
    messages: [msg('PROSPECT', 'Hi there', 11), msg('AGENT', 'Hello!', 12), msg('PROSPECT', 'Price?', 50)],
  });
  ownA2 = await buildConversation(t.ctx, {
    conversationTypeId: typeB.id,
    prospectId: prospectA.id,
    phase: -2,
    rating: 2,
    createdAt: at(30),
    messages: [msg('PROSPECT', 'Hey', 31)],
  });
  otherB = await buildConversation(t.ctx, {
    conversationTypeId: typeA.id,
    prospectId: prospectB.id,
    phase: 0,
    rating: 5,
    recordingDuration: 600,
    recordingUrl: 'https://files.example.com/b.mp3',
    createdAt: at(20),
    messages: [msg('PROSPECT', 'Secret of B', 21), msg('AGENT', 'Answer to B', 40)],
  });
  web = await buildConversation(t.ctx, {
    conversationTypeId: typeA.id,
    createdAt: at(40),
    messages: [msg('AGENT', 'Hello! How can I help?', 41), msg('PROSPECT', 'Just looking', 45)],
  });
});

const list = (query: string, as = admin.cookie) => t.request({ method: 'GET', url: `/api/conversation/list${query}`, as });
const uuidsOf = (res: { json(): { conversations: { uuid: string }[] } }) => res.json().conversations.map((c) => c.uuid);

describe('GET /api/conversation/list', () => {
  it('answers 401 to an anonymous visitor', async () => {
    const res = await t.request({ method: 'GET', url: '/api/conversation/list' });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHORIZED');
  });

  it('shows an ADMIN every conversation, newest message first, with every column', async () => {
    const res = await list('');
    expect(res.statusCode).toBe(200);
    expect(uuidsOf(res)).toEqual([ownA1.uuid, web.uuid, otherB.uuid, ownA2.uuid]);
    expect(res.json().totalPages).toBe(1);
    const first = res.json().conversations[0];
    expect(first).toEqual({
      id: ownA1.id,
      uuid: ownA1.uuid,
      phase: 1,
      conversationTypeId: typeA.id,
      ConversationType: { id: typeA.id, title: 'Widgets playbook' },
      rating: 4,
      outcome: null,
      recordingDuration: 120,
      recordingUrl: 'https://files.example.com/a1.mp3',
      messagesCount: 3,
      lastMessageDate: at(50).toISOString(),
      prospectId: prospectA.id,
      Prospect: { uuid: prospectA.uuid, name: null, phone: null, messagingAccount: { id: accountA.id, pageName: 'Alpha page', type: 'INSTAGRAM' } },
      phaseCount: 3,
      lastMessage: { role: 'PROSPECT', preview: 'Price?', dateSent: at(50).toISOString(), author: { kind: 'prospect' } },
      aiPaused: false,
      needsHuman: false,
      followUp: null,
      costUsd: 0,
      // The prospect wrote last and this ADMIN never read it (conversation-reads.test.ts).
      unread: true,
      doNotContact: false,
      assignee: null,
      state: 'open',
      snoozedUntil: null,
    });
    const webRow = res.json().conversations.find((c: { uuid: string }) => c.uuid === web.uuid);
    expect(webRow.Prospect).toBeNull();
  });

  it('orders by creation with orderBy=latestConversations', async () => {
    expect(uuidsOf(await list('?orderBy=latestConversations'))).toEqual([web.uuid, ownA2.uuid, otherB.uuid, ownA1.uuid]);
  });

  it('shows a NORMAL user only the conversations of granted accounts, and nothing to a user with no grant', async () => {
    expect(uuidsOf(await list('', normal.cookie))).toEqual([ownA1.uuid, ownA2.uuid]);
    const none = await list('', stranger.cookie);
    expect(none.json()).toEqual({ conversations: [], totalPages: 0, totalPagesIsLowerBound: false });
  });

  it('applies each filter', async () => {
    expect(uuidsOf(await list(`?uuid=${otherB.uuid}`))).toEqual([otherB.uuid]);
    expect(uuidsOf(await list(`?uuid=${otherB.uuid.slice(0, 8)}`))).toEqual([otherB.uuid]);
    expect(uuidsOf(await list(`?prospectUuid=${prospectA.uuid}`))).toEqual([ownA1.uuid, ownA2.uuid]);
    expect(uuidsOf(await list(`?prospectUuid=${prospectB.uuid.slice(0, 6)}`))).toEqual([otherB.uuid]);
    expect(uuidsOf(await list('?phase=-2'))).toEqual([ownA2.uuid]);
    expect(uuidsOf(await list(`?conversationType=${typeB.id}`))).toEqual([ownA2.uuid]);
    expect(uuidsOf(await list('?minRating=4'))).toEqual([ownA1.uuid, otherB.uuid]);
    expect(uuidsOf(await list('?maxRating=4&minRating=3'))).toEqual([ownA1.uuid]);
    expect(uuidsOf(await list('?minRecordingDuration=200'))).toEqual([otherB.uuid]);
    expect(uuidsOf(await list('?maxRecordingDuration=200'))).toEqual([ownA1.uuid]);
    expect(uuidsOf(await list('?hasRecording=true'))).toEqual([ownA1.uuid, otherB.uuid]);
    expect(uuidsOf(await list('?hasRecording=false'))).toEqual([web.uuid, ownA2.uuid]);
    expect(uuidsOf(await list('?hasRecording=all&minRating=&phase='))).toHaveLength(4);
    // Ratings and durations are whole numbers: a fractional bound is rounded inwards, never a 500.
    expect(uuidsOf(await list('?minRating=3.5'))).toEqual(uuidsOf(await list('?minRating=4')));
    expect(uuidsOf(await list('?maxRating=4.5&minRating=2.5'))).toEqual(uuidsOf(await list('?maxRating=4&minRating=3')));
    expect(uuidsOf(await list('?minRecordingDuration=199.5'))).toEqual(uuidsOf(await list('?minRecordingDuration=200')));
    expect(uuidsOf(await list('?maxRecordingDuration=200.5'))).toEqual(uuidsOf(await list('?maxRecordingDuration=200')));
    // A NORMAL user's filters never widen the scope.
    expect(uuidsOf(await list(`?uuid=${otherB.uuid}`, normal.cookie))).toEqual([]);
    expect(uuidsOf(await list(`?prospectUuid=${prospectB.uuid}`, normal.cookie))).toEqual([]);
  });

  it('pages with limit 10, 50 or 100 and reports totalPages', async () => {
    const typeP = await buildConversationType(t.ctx, { title: 'Paging', phases: 0 });
    for (let i = 0; i < 23; i++) await buildConversation(t.ctx, { conversationTypeId: typeP.id, createdAt: at(1000 + i) });
    const page1 = await list(`?conversationType=${typeP.id}&orderBy=latestConversations&limit=10&page=1`);
    expect(page1.json().totalPages).toBe(3);
    expect(page1.json().conversations).toHaveLength(10);
    const page3 = await list(`?conversationType=${typeP.id}&orderBy=latestConversations&limit=10&page=3`);
    expect(page3.json().conversations).toHaveLength(3);
    const all = new Set([...uuidsOf(page1), ...uuidsOf(await list(`?conversationType=${typeP.id}&orderBy=latestConversations&page=2`)), ...uuidsOf(page3)]);
    expect(all.size).toBe(23);
    const big = await list(`?conversationType=${typeP.id}&limit=50`);
    expect(big.json()).toMatchObject({ totalPages: 1, totalPagesIsLowerBound: false });
    expect(big.json().conversations).toHaveLength(23);
    expect((await list(`?conversationType=${typeP.id}&page=9`)).json().conversations).toEqual([]);
  });

  it('stops counting a little beyond the page and says totalPages is then a lower bound', async () => {
    const typeC = await buildConversationType(t.ctx, { title: 'Counting', phases: 0 });
    await t.ctx.db.insert(conversations).values(Array.from({ length: 1050 }, () => ({ conversationTypeId: typeC.id })));
    const first = await list(`?conversationType=${typeC.id}`);
    expect(first.json()).toMatchObject({ totalPages: 100, totalPagesIsLowerBound: true });
    const deep = await list(`?conversationType=${typeC.id}&page=100`);
    expect(deep.json()).toMatchObject({ totalPages: 105, totalPagesIsLowerBound: false });
    expect(deep.json().conversations).toHaveLength(10);
    await t.ctx.db.delete(conversations).where(eq(conversations.conversationTypeId, typeC.id));
  });

  it('answers 400 naming the field for a bad query', async () => {
    for (const q of ['?limit=20', '?page=0', '?orderBy=oldest', '?hasRecording=maybe', '?phase=abc', '?uuid=zz%25', '?minRating=-1',
      // Beyond the 32-bit integer columns they compare with.
      '?page=1e12', '?phase=99999999999', '?conversationType=99999999999', '?minRating=1e20', '?maxRecordingDuration=99999999999']) {
      const res = await list(q);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET /api/conversation/:uuid', () => {
  it('shows a web chat to anyone holding its uuid, without phase prompts', async () => {
    const res = await t.request({ method: 'GET', url: `/api/conversation/${web.uuid}` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      id: web.id,
      uuid: web.uuid,
      phase: 0,
      Prospect: null,
      canAdminister: false,
      isDemoAgent: true,
      phaseCount: 3,
      // A visitor reads the type's public title (config `publicTitle`, default "Chat"), never its internal one.
      ConversationType: { id: typeA.id, title: 'Chat', conversation_phases: [] },
    });
    expect(res.body).not.toContain('Widgets playbook');
    expect(body.messages.map((m: { role: string; message: string }) => [m.role, m.message])).toEqual([
      ['AGENT', 'Hello! How can I help?'],
      ['PROSPECT', 'Just looking'],
    ]);
  });

  it('gives an ADMIN the phase prompts and canAdminister', async () => {
    const res = await t.request({ method: 'GET', url: `/api/conversation/${web.uuid}`, as: admin.cookie });
    expect(res.json().canAdminister).toBe(true);
    expect(res.json().ConversationType.conversation_phases).toEqual([
      { index: 0, prompt: expect.stringContaining('Phase 0 goal') },
      { index: 1, prompt: expect.stringContaining('Phase 1 goal') },
      { index: 2, prompt: expect.stringContaining('Phase 2 goal') },
    ]);
  });

  it('shows a prospect conversation to a granted user, and 404 to anyone else', async () => {
    const ok = await t.request({ method: 'GET', url: `/api/conversation/${ownA1.uuid}`, as: normal.cookie });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      canAdminister: true,
      Prospect: { uuid: prospectA.uuid, messagingAccount: { id: accountA.id, pageName: 'Alpha page', type: 'INSTAGRAM' } },
    });
    expect(ok.json().messages).toHaveLength(3);
    for (const as of [undefined, stranger.cookie]) {
      const hidden = await t.request({ method: 'GET', url: `/api/conversation/${ownA1.uuid}`, as });
      expect(hidden.statusCode).toBe(404);
      expect(hidden.json().code).toBe('CONVERSATION_NOT_FOUND');
    }
    expect((await t.request({ method: 'GET', url: `/api/conversation/${otherB.uuid}`, as: normal.cookie })).statusCode).toBe(404);
  });

  it('answers 404 for an unknown uuid and 400 for a malformed one', async () => {
    expect((await t.request({ method: 'GET', url: '/api/conversation/00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/api/conversation/not-a-uuid' })).statusCode).toBe(400);
  });
});

describe('changing a conversation', () => {
  it('PATCH conversationType: granted user on own conversation; 401/403/404 for others', async () => {
    const res = await t.request({ method: 'PATCH', url: `/api/conversation/${ownA2.id}`, as: normal.cookie, payload: { conversationType: typeA.id } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Conversation type updated' });
    const [row] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, ownA2.id));
    expect(row.conversationTypeId).toBe(typeA.id);

    const anon = await t.request({ method: 'PATCH', url: `/api/conversation/${ownA2.id}`, payload: { conversationType: typeB.id } });
    expect(anon.statusCode).toBe(401);
    const foreign = await t.request({ method: 'PATCH', url: `/api/conversation/${otherB.id}`, as: normal.cookie, payload: { conversationType: typeB.id } });
    expect(foreign.statusCode).toBe(404);
    const webByNormal = await t.request({ method: 'PATCH', url: `/api/conversation/${web.id}`, as: normal.cookie, payload: { conversationType: typeB.id } });
    expect(webByNormal.statusCode).toBe(403);
    const unknownType = await t.request({ method: 'PATCH', url: `/api/conversation/${ownA2.id}`, as: admin.cookie, payload: { conversationType: 999999 } });
    expect(unknownType.statusCode).toBe(404);
    const unknown = await t.request({ method: 'PATCH', url: '/api/conversation/999999', as: admin.cookie, payload: { conversationType: typeB.id } });
    expect(unknown.statusCode).toBe(404);
    // Ids beyond the 32-bit id columns are refused before they reach SQL (they were a 500).
    const hugeType = await t.request({ method: 'PATCH', url: `/api/conversation/${ownA2.id}`, as: admin.cookie, payload: { conversationType: 99999999999 } });
    expect(hugeType.statusCode).toBe(400);
    const hugeId = await t.request({ method: 'PATCH', url: '/api/conversation/99999999999', as: admin.cookie, payload: { conversationType: typeB.id } });
    expect(hugeId.statusCode).toBe(400);
    const [after] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, otherB.id));
    expect(after.conversationTypeId).toBe(typeA.id);
  });

  it('PATCH phase: validates the phase code against the type', async () => {
    for (const payload of [{ phase: 4 }, { phase: -4 }, { phase: 1.5 }, { phase: 'x' }, {}, { phase: 1, conversationType: 1 }]) {
      const res = await t.request({ method: 'PATCH', url: `/api/conversation/${ownA1.id}`, as: admin.cookie, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const bad = await t.request({ method: 'PATCH', url: `/api/conversation/${ownA1.id}`, as: admin.cookie, json: '{' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('INVALID_JSON');
    expect((await t.request({ method: 'PATCH', url: '/api/conversation/abc', as: admin.cookie, payload: { phase: 1 } })).statusCode).toBe(400);
  });

  it('PATCH message: edits a message of the conversation, trimmed; 400 empty; 404 for a message elsewhere', async () => {
    const target = ownA1.messages[1];
    const res = await t.request({
      method: 'PATCH',
      url: `/api/conversation/${ownA1.id}/message/${target.id}`,
      as: normal.cookie,
      payload: { message: '  Hello, edited!  ' },
    });
    expect(res.json()).toEqual({ message: 'Message updated successfully' });
    const [row] = await t.ctx.db.select().from(messages).where(eq(messages.id, target.id));
    expect(row.message).toBe('Hello, edited!');
    const empty = await t.request({ method: 'PATCH', url: `/api/conversation/${ownA1.id}/message/${target.id}`, as: normal.cookie, payload: { message: '   ' } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toContain('message');
    const elsewhere = await t.request({
      method: 'PATCH',
      url: `/api/conversation/${ownA1.id}/message/${otherB.messages[0].id}`,
      as: admin.cookie,
      payload: { message: 'hijack' },
    });
    expect(elsewhere.statusCode).toBe(404);
    const foreign = await t.request({
      method: 'PATCH',
      url: `/api/conversation/${otherB.id}/message/${otherB.messages[0].id}`,
      as: normal.cookie,
      payload: { message: 'hijack' },
    });
    expect(foreign.statusCode).toBe(404);
    const [untouched] = await t.ctx.db.select().from(messages).where(eq(messages.id, otherB.messages[0].id));
    expect(untouched.message).toBe('Secret of B');
  });

  it('DELETE messages: removes only the conversation’s messages and keeps the counters right', async () => {
    const conv = await buildConversation(t.ctx, {
      prospectId: prospectA.id,
      messages: [msg('PROSPECT', 'one', 1), msg('AGENT', 'two', 2), msg('PROSPECT', 'three', 3)],
    });
    const res = await t.request({
      method: 'DELETE',
      url: `/api/conversation/${conv.id}/messages`,
      as: normal.cookie,
      payload: { messageIds: [conv.messages[2].id, otherB.messages[0].id] },
    });
    expect(res.json()).toEqual({ message: 'Messages deleted', deleted: 1 });
    const [row] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, conv.id));
    expect(row.messagesCount).toBe(2);
    expect(row.lastMessageDate?.toISOString()).toBe(at(2).toISOString());
    expect(await t.ctx.db.select().from(messages).where(eq(messages.id, otherB.messages[0].id))).toHaveLength(1);

    const none = await t.request({ method: 'DELETE', url: `/api/conversation/${conv.id}/messages`, as: normal.cookie, payload: { messageIds: [otherB.messages[1].id] } });
    expect(none.statusCode).toBe(404);
    for (const payload of [{ messageIds: [] }, { messageIds: ['x'] }, {}]) {
      expect((await t.request({ method: 'DELETE', url: `/api/conversation/${conv.id}/messages`, as: normal.cookie, payload })).statusCode).toBe(400);
    }
    const foreign = await t.request({ method: 'DELETE', url: `/api/conversation/${otherB.id}/messages`, as: normal.cookie, payload: { messageIds: [otherB.messages[0].id] } });
    expect(foreign.statusCode).toBe(404);
    const anon = await t.request({ method: 'DELETE', url: `/api/conversation/${conv.id}/messages`, payload: { messageIds: [conv.messages[0].id] } });
    expect(anon.statusCode).toBe(401);
  });

  it('DELETE conversation: granted user or ADMIN; never by id alone', async () => {
    const mine = await buildConversation(t.ctx, { prospectId: prospectA.id });
    const webChat = await buildConversation(t.ctx, {});
    expect((await t.request({ method: 'DELETE', url: `/api/conversation/${mine.id}` })).statusCode).toBe(401);
    expect((await t.request({ method: 'DELETE', url: `/api/conversation/${mine.id}`, as: stranger.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/conversation/${webChat.id}`, as: normal.cookie })).statusCode).toBe(403);
    const res = await t.request({ method: 'DELETE', url: `/api/conversation/${mine.id}`, as: normal.cookie });
    expect(res.json()).toEqual({ message: 'Conversation deleted' });
    expect(await t.ctx.db.select().from(conversations).where(eq(conversations.id, mine.id))).toHaveLength(0);
    expect((await t.request({ method: 'DELETE', url: `/api/conversation/${webChat.id}`, as: admin.cookie })).statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/api/conversation/${webChat.id}`, as: admin.cookie })).statusCode).toBe(404);
  });
});

describe('DELETE conversation and its background work', () => {
  it('cancels the waiting agent turn of a deleted conversation', async () => {
    const { uuid } = (await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: typeA.id } })).json();
    expect((await t.request({ method: 'POST', url: `/api/conversation/${uuid}/written-message`, payload: { message: 'Hello?' } })).statusCode).toBe(200);
    const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.uuid, uuid));
    expect(await pendingJobs(t.ctx, `turn:${conversation.id}`)).toHaveLength(1);
    expect((await t.request({ method: 'DELETE', url: `/api/conversation/${conversation.id}`, as: admin.cookie })).statusCode).toBe(200);
    expect(await pendingJobs(t.ctx, `turn:${conversation.id}`)).toHaveLength(0);
  });
});

describe('agent-backed calls: authorization and validation', () => {
  it('POST new: 400 for a bad body, 404 for an unknown type', async () => {
    for (const payload of [{}, { conversationTypeId: 'abc' }, { conversationTypeId: -1 }, { conversationTypeId: 99999999999 }]) {
      expect((await t.request({ method: 'POST', url: '/api/conversation/new', payload })).statusCode).toBe(400);
    }
    const unknown = await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: 999999 } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('CONVERSATION_TYPE_NOT_FOUND');
  });

  it('written-message: 400 for empty text, 404 for a hidden prospect conversation', async () => {
    const empty = await t.request({ method: 'POST', url: `/api/conversation/${web.uuid}/written-message`, payload: { message: ' \n ' } });
    expect(empty.statusCode).toBe(400);
    // PostgreSQL text cannot hold U+0000: refused up front instead of failing in the insert (was a 500).
    const nul = await t.request({ method: 'POST', url: `/api/conversation/${web.uuid}/written-message`, payload: { message: 'a\u0000b' } });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('message') });
    const hidden = await t.request({ method: 'POST', url: `/api/conversation/${otherB.uuid}/written-message`, as: normal.cookie, payload: { message: 'hi' } });
    expect(hidden.statusCode).toBe(404);
    const anon = await t.request({ method: 'POST', url: `/api/conversation/${ownA1.uuid}/written-message`, payload: { message: 'hi' } });
    expect(anon.statusCode).toBe(404);
  });

  it('follow-up: 401 anonymous, 403 NORMAL on a web chat, 404 hidden or unknown', async () => {
    expect((await t.request({ method: 'POST', url: `/api/conversation/${web.uuid}/follow-up` })).statusCode).toBe(401);
    expect((await t.request({ method: 'POST', url: `/api/conversation/${web.uuid}/follow-up`, as: normal.cookie })).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: `/api/conversation/${otherB.uuid}/follow-up`, as: normal.cookie })).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'POST', url: '/api/conversation/00000000-0000-4000-8000-000000000000/follow-up', as: admin.cookie })).statusCode,
    ).toBe(404);
  });
});

describe('GET /api/conversation/:uuid/events', () => {
  let base: string;
  beforeAll(async () => {
    base = await t.listen();
  });

  /** Opens the stream and resolves with the events seen until `until` returns true. */
  const openStream = (uuid: string, cookie?: string) => openEventStream(`${base}/api/conversation/${uuid}/events`, cookie);

  it('streams a change of the conversation and stops listening when the browser leaves', async () => {
    const stream = await openStream(web.uuid);
    expect(stream.status).toBe(200);
    expect(stream.type).toContain('text/event-stream');
    await stream.read((text) => text.includes('event: ready'));
    t.ctx.events.emit('conversation.changed', { conversationId: otherB.id, uuid: otherB.uuid });
    const res = await t.request({ method: 'PATCH', url: `/api/conversation/${web.id}`, as: admin.cookie, payload: { conversationType: typeB.id } });
    expect(res.statusCode).toBe(200);
    const text = await stream.read((s) => s.includes('event: conversation.changed'));
    expect(text).toContain(`data: {"uuid":"${web.uuid}"}`);
    expect(text).not.toContain(otherB.uuid);
    // The stream's listener on the event bus is released when the browser disconnects.
    const listeners = () => (t.ctx.events as unknown as { emitter: EventEmitter }).emitter.listenerCount('conversation.changed');
    const open = listeners();
    expect(open).toBeGreaterThan(0);
    stream.close();
    await vi.waitFor(() => expect(listeners()).toBe(open - 1));
  });

  it(`caps open streams per client at ${STREAMS_PER_CLIENT} with a 429, and frees a slot when one closes`, async () => {
    const streams = [];
    for (let i = 0; i < STREAMS_PER_CLIENT; i++) streams.push(await openStream(web.uuid));
    expect(streams.every((s) => s.status === 200)).toBe(true);
    const refused = await openStream(web.uuid);
    expect(refused.status).toBe(429);
    expect(await refused.read((text) => text.includes('}'))).toContain('TOO_MANY_STREAMS');
    refused.close();
    streams.pop()!.close();
    await vi.waitFor(async () => {
      const again = await openStream(web.uuid);
      again.close();
      expect(again.status).toBe(200);
    });
    for (const s of streams) s.close();
  });

  it('GET /api/conversation/list/events streams changes of visible conversations only (issue 12 inbox)', async () => {
    const anonymous = await openStream('list');
    expect(anonymous.status).toBe(401);
    anonymous.close();
    const mine = await openStream('list', normal.cookie);
    const all = await openStream('list', admin.cookie);
    expect(mine.status).toBe(200);
    await mine.read((text) => text.includes('event: ready'));
    await all.read((text) => text.includes('event: ready'));
    // B is not granted to `normal`: the admin's stream gets it, the NORMAL user's does not.
    t.ctx.events.emit('conversation.changed', { conversationId: otherB.id, uuid: otherB.uuid });
    t.ctx.events.emit('conversation.changed', { conversationId: ownA1.id, uuid: ownA1.uuid });
    const adminText = await all.read((s) => s.includes(ownA1.uuid));
    expect(adminText).toContain(otherB.uuid);
    const normalText = await mine.read((s) => s.includes(ownA1.uuid));
    expect(normalText).not.toContain(otherB.uuid);
    mine.close();
    all.close();
  });

  it("a user's read mark reaches that user's other inbox streams, not anyone else's", async () => {
    const phone = await openStream('list', normal.cookie);
    const desktop = await openStream('list', normal.cookie);
    const adminStream = await openStream('list', admin.cookie);
    for (const s of [phone, desktop, adminStream]) await s.read((text) => text.includes('event: ready'));
    const read = await t.request({ method: 'PUT', url: `/api/conversation/${ownA1.uuid}/read`, as: normal.cookie, payload: {} });
    expect(read.statusCode).toBe(200);
    expect(await desktop.read((text) => text.includes(ownA1.uuid))).toContain(`data: {"uuid":"${ownA1.uuid}"}`);
    expect(await phone.read((text) => text.includes(ownA1.uuid))).toContain('event: conversation.changed');
    // The admin's stream got nothing from it: a change it does see, emitted after, is the first thing it reads.
    t.ctx.events.emit('conversation.changed', { conversationId: otherB.id, uuid: otherB.uuid });
    const adminText = await adminStream.read((text) => text.includes(otherB.uuid));
    expect(adminText).not.toContain(ownA1.uuid);
    for (const s of [phone, desktop, adminStream]) s.close();
  });

  it('refuses a hidden conversation with 404', async () => {
    const stream = await openStream(otherB.uuid, normal.cookie);
    expect(stream.status).toBe(404);
    stream.close();
  });
});

describe('agent-backed calls (offline demo agent)', () => {
  it('POST new starts a web chat with the initial message; the visitor writes as the prospect', async () => {
    const res = await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: typeA.id } });
    expect(res.statusCode).toBe(201);
    const { uuid } = res.json();
    const detail = (await t.request({ method: 'GET', url: `/api/conversation/${uuid}` })).json();
    expect(detail).toMatchObject({ phase: 0, Prospect: null, canAdminister: false });
    expect(detail.messages.map((m: { role: string; message: string }) => [m.role, m.message])).toEqual([['AGENT', 'Hello! How can I help?']]);

    let events = 0;
    const stop = t.ctx.events.on('conversation.changed', (e) => e.uuid === uuid && events++);
    const sent = await t.request({ method: 'POST', url: `/api/conversation/${uuid}/written-message`, payload: { message: '  I want widgets  ' } });
    stop();
    expect(sent.statusCode).toBe(200);
    expect(events).toBeGreaterThan(0);
    const after = (await t.request({ method: 'GET', url: `/api/conversation/${uuid}` })).json();
    expect(after.messages.at(-1)).toMatchObject({ role: 'PROSPECT', message: 'I want widgets' });
    expect(after.phase).toBe(-3);
  });

  it('a granted user writes as the business on a prospect conversation, which pauses the AI', async () => {
    const conv = await buildConversation(t.ctx, { conversationTypeId: typeA.id, prospectId: prospectA.id, messages: [msg('PROSPECT', 'Hello?', 5)] });
    const res = await t.request({ method: 'POST', url: `/api/conversation/${conv.uuid}/written-message`, as: normal.cookie, payload: { message: 'A person here' } });
    expect(res.statusCode).toBe(200);
    const detail = (await t.request({ method: 'GET', url: `/api/conversation/${conv.uuid}`, as: normal.cookie })).json();
    expect(detail.messages.at(-1)).toMatchObject({ role: 'AGENT', message: 'A person here' });
    expect(detail.aiPaused).toBe(true);
  });

  it('PATCH phase sets any phase code and answers Phase updated', async () => {
    const conv = await buildConversation(t.ctx, { conversationTypeId: typeA.id, prospectId: prospectA.id, phase: 0 });
    for (const phase of [-2, 3, 9999, 1]) {
      const res = await t.request({ method: 'PATCH', url: `/api/conversation/${conv.id}`, as: normal.cookie, payload: { phase } });
      expect(res.json()).toEqual({ message: 'Phase updated' });
      const [row] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, conv.id));
      expect(row.phase).toBe(phase);
    }
    const foreign = await t.request({ method: 'PATCH', url: `/api/conversation/${otherB.id}`, as: normal.cookie, payload: { phase: 1 } });
    expect(foreign.statusCode).toBe(404);
  });

  it('follow-up writes a nudge on a granted conversation', async () => {
    // prospectA is on Instagram: the nudge may go out only within 24 h of the prospect's last message.
    const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);
    const conv = await buildConversation(t.ctx, {
      conversationTypeId: typeA.id,
      prospectId: prospectA.id,
      phase: 1,
      messages: [
        { role: 'PROSPECT', message: 'Tell me more', dateSent: minutesAgo(10) },
        { role: 'AGENT', message: 'Sure, widgets are great', dateSent: minutesAgo(9) },
      ],
    });
    const res = await t.request({ method: 'POST', url: `/api/conversation/${conv.uuid}/follow-up`, as: normal.cookie });
    expect(res.statusCode, res.body).toBe(200);
    expect(typeof res.json().message).toBe('string');
    const detail = (await t.request({ method: 'GET', url: `/api/conversation/${conv.uuid}`, as: admin.cookie })).json();
    expect(detail.messages).toHaveLength(3);
    expect(detail.messages.at(-1).role).toBe('AGENT');
  });
});

describe("a NORMAL user's list goes through conversations.messagingAccountId", () => {
  let accountC: Awaited<ReturnType<typeof buildMessagingAccount>>;
  let accountD: Awaited<ReturnType<typeof buildMessagingAccount>>;
  let both: TestUser;
  let onlyC: TestUser;
  let c1: Awaited<ReturnType<typeof buildConversation>>;
  let c2: Awaited<ReturnType<typeof buildConversation>>;
  let d1: Awaited<ReturnType<typeof buildConversation>>;
  let prospectC: Awaited<ReturnType<typeof buildProspect>>;
  let prospectD: Awaited<ReturnType<typeof buildProspect>>;
  const accountOf = async (id: number) =>
    (await t.ctx.db.select({ a: conversations.messagingAccountId }).from(conversations).where(eq(conversations.id, id)))[0]?.a;

  beforeAll(async () => {
    accountC = await buildMessagingAccount(t.ctx, { pageName: 'Gamma page' });
    accountD = await buildMessagingAccount(t.ctx, { pageName: 'Delta page' });
    both = await buildUser(t.ctx);
    onlyC = await buildUser(t.ctx);
    await grantAccount(t.ctx, both.id, accountC.id);
    await grantAccount(t.ctx, both.id, accountD.id);
    await grantAccount(t.ctx, onlyC.id, accountC.id);
    prospectC = await buildProspect(t.ctx, accountC.id);
    prospectD = await buildProspect(t.ctx, accountD.id);
    c1 = await buildConversation(t.ctx, { prospectId: prospectC.id, createdAt: at(2000), messages: [msg('PROSPECT', 'c1', 2001)] });
    d1 = await buildConversation(t.ctx, { prospectId: prospectD.id, createdAt: at(2010), messages: [msg('PROSPECT', 'd1', 2020)] });
    c2 = await buildConversation(t.ctx, { prospectId: prospectC.id, createdAt: at(2020), messages: [msg('PROSPECT', 'c2', 2015)] });
  });

  it("stores the prospect's account on the conversation and merges every granted account in both orders", async () => {
    expect([await accountOf(c1.id), await accountOf(c2.id), await accountOf(d1.id), await accountOf(web.id)]).toEqual([
      accountC.id,
      accountC.id,
      accountD.id,
      null,
    ]);
    const res = await list('', both.cookie);
    expect(uuidsOf(res)).toEqual([d1.uuid, c2.uuid, c1.uuid]);
    expect(res.json().conversations.map((c: { Prospect: { messagingAccount: { pageName: string } } }) => c.Prospect.messagingAccount.pageName)).toEqual([
      'Delta page',
      'Gamma page',
      'Gamma page',
    ]);
    expect(uuidsOf(await list('?orderBy=latestConversations', both.cookie))).toEqual([c2.uuid, d1.uuid, c1.uuid]);
    expect(uuidsOf(await list('', onlyC.cookie))).toEqual([c2.uuid, c1.uuid]);
    expect(uuidsOf(await list(`?prospectUuid=${prospectD.uuid}`, onlyC.cookie))).toEqual([]);
  });

  it("refuses a conversation whose account is not its prospect's, or that has one without the other", async () => {
    await expect(t.ctx.db.insert(conversations).values({ prospectId: prospectC.id, messagingAccountId: accountD.id })).rejects.toThrow();
    await expect(t.ctx.db.insert(conversations).values({ prospectId: prospectC.id })).rejects.toThrow();
    await expect(t.ctx.db.insert(conversations).values({ messagingAccountId: accountC.id })).rejects.toThrow();
    expect(uuidsOf(await list('', both.cookie))).toHaveLength(3);
  });

  it("follows the prospect when the prospect's account changes", async () => {
    await t.ctx.db.update(prospects).set({ messagingAccountId: accountD.id }).where(eq(prospects.id, prospectC.id));
    expect(await accountOf(c1.id)).toBe(accountD.id);
    expect(uuidsOf(await list('', onlyC.cookie))).toEqual([]);
    expect(uuidsOf(await list('', both.cookie))).toEqual([d1.uuid, c2.uuid, c1.uuid]);
    await t.ctx.db.update(prospects).set({ messagingAccountId: accountC.id }).where(eq(prospects.id, prospectC.id));
    expect(uuidsOf(await list('', onlyC.cookie))).toEqual([c2.uuid, c1.uuid]);
  });

  it('deleting an account removes its conversations from every list', async () => {
    const res = await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${accountD.id}`, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect(await accountOf(d1.id)).toBeUndefined();
    expect(uuidsOf(await list('', both.cookie))).toEqual([c2.uuid, c1.uuid]);
    expect(uuidsOf(await list(`?uuid=${d1.uuid}`))).toEqual([]);
    expect(uuidsOf(await list('', onlyC.cookie))).toEqual([c2.uuid, c1.uuid]);
  });
});

describe('the channel and the prospect name (issue #8)', () => {
  let whatsapp: typeof messagingAccounts.$inferSelect;
  let named: Awaited<ReturnType<typeof buildProspect>>;
  let older: Awaited<ReturnType<typeof buildConversation>>;
  let latest: Awaited<ReturnType<typeof buildConversation>>;

  beforeAll(async () => {
    [whatsapp] = await t.ctx.db
      .insert(messagingAccounts)
      .values({ type: 'WHATSAPP', accessTokenEncrypted: t.ctx.secrets.seal('wa-token'), pageId: '106540352242922', pageName: 'WA line' })
      .returning();
    await grantAccount(t.ctx, normal.id, whatsapp.id);
    named = await buildProspect(t.ctx, whatsapp.id);
    await t.ctx.db.update(prospects).set({ externalId: '16505551234', name: 'Ada Lovelace' }).where(eq(prospects.id, named.id));
    older = await buildConversation(t.ctx, { prospectId: named.id, phase: 3, createdAt: at(3000), messages: [msg('PROSPECT', 'first', 3001)] });
    latest = await buildConversation(t.ctx, { prospectId: named.id, createdAt: at(3010), messages: [msg('PROSPECT', 'again', 3011)] });
  });

  it("lists each conversation's channel and the prospect's name; web chats have no Prospect", async () => {
    const rows = (await list('')).json().conversations as { uuid: string; Prospect: unknown }[];
    expect(rows.find((c) => c.uuid === latest.uuid)?.Prospect).toEqual({
      uuid: named.uuid,
      name: 'Ada Lovelace',
      // Issue 24: a WhatsApp prospect's number.
      phone: '+16505551234',
      messagingAccount: { id: whatsapp.id, pageName: 'WA line', type: 'WHATSAPP' },
    });
    expect(rows.find((c) => c.uuid === ownA1.uuid)?.Prospect).toMatchObject({ name: null, messagingAccount: { type: 'INSTAGRAM' } });
    expect(rows.find((c) => c.uuid === web.uuid)?.Prospect).toBeNull();
    // A granted NORMAL user sees the same fields.
    const mine = (await list(`?prospectUuid=${named.uuid}`, normal.cookie)).json().conversations;
    expect(mine.map((c: { Prospect: { name: string } }) => c.Prospect.name)).toEqual(['Ada Lovelace', 'Ada Lovelace']);
  });

  it('gives the detail the same name and channel', async () => {
    const res = await t.request({ method: 'GET', url: `/api/conversation/${latest.uuid}`, as: normal.cookie });
    expect(res.json().Prospect).toEqual({
      uuid: named.uuid,
      name: 'Ada Lovelace',
      // Issue 24: a WhatsApp prospect's number.
      phone: '+16505551234',
      messagingAccount: { id: whatsapp.id, pageName: 'WA line', type: 'WHATSAPP' },
    });
  });

  describe('GET /api/admin/conversation/by-prospect', () => {
    const find = (query: string, as?: string) => t.request({ method: 'GET', url: `/api/admin/conversation/by-prospect${query}`, as });

    it("answers the prospect's latest conversation to an ADMIN", async () => {
      const res = await find(`?messagingAccountId=${whatsapp.id}&externalId=16505551234`, admin.cookie);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ id: latest.id, uuid: latest.uuid });
      expect(older.id).toBeLessThan(latest.id);
    });

    it('answers 404 while the prospect has no conversation, or on another account', async () => {
      for (const query of [
        `?messagingAccountId=${whatsapp.id}&externalId=19995550000`,
        `?messagingAccountId=${accountA.id}&externalId=16505551234`,
        '?messagingAccountId=2147483647&externalId=16505551234',
      ]) {
        const res = await find(query, admin.cookie);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'This prospect has no conversation yet.', code: 'CONVERSATION_NOT_FOUND' });
      }
    });

    it('answers 400 naming the missing or bad field', async () => {
      const missing = await find(`?messagingAccountId=${whatsapp.id}`, admin.cookie);
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error).toContain('externalId');
      const bad = await find('?messagingAccountId=abc&externalId=1', admin.cookie);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toContain('messagingAccountId');
      const blank = await find(`?messagingAccountId=${whatsapp.id}&externalId=%20%20`, admin.cookie);
      expect(blank.statusCode).toBe(400);
    });

    it('answers 401 anonymous and 403 to a NORMAL user, even one granted the account', async () => {
      const query = `?messagingAccountId=${whatsapp.id}&externalId=16505551234`;
      expect((await find(query)).statusCode).toBe(401);
      const res = await find(query, normal.cookie);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
    });
  });
});

describe('inbox fields of the list (issue 12)', () => {
  it('marks needs-a-person (-2, -1, recorded errors), paused AI, follow-ups and the latest message preview', async () => {
    const account = await buildMessagingAccount(t.ctx, { pageName: 'Inbox page' });
    const prospect = await buildProspect(t.ctx, account.id);
    const long = 'x'.repeat(300);
    const errored = await buildConversation(t.ctx, { conversationTypeId: typeA.id, prospectId: prospect.id, phase: -1, messages: [msg('PROSPECT', long, 70)] });
    const failing = await buildConversation(t.ctx, { conversationTypeId: typeA.id, prospectId: prospect.id, phase: 1, messages: [msg('AGENT', 'Hi', 71)] });
    await buildUnanswered(t.ctx, failing.id, { errors: JSON.stringify([{ message: 'boom' }]), followUpCount: 2 });
    const quiet = await buildConversation(t.ctx, { conversationTypeId: typeA.id, prospectId: prospect.id, phase: 1 });
    await buildUnanswered(t.ctx, quiet.id, { status: 'INACTIVE' });
    await t.ctx.db.update(conversations).set({ aiPaused: true, costUsd: 0.25 }).where(eq(conversations.id, quiet.id));

    const res = await list(`?limit=100`);
    const rows = res.json().conversations as { uuid: string; needsHuman: boolean; lastMessage: { preview: string } | null; aiPaused: boolean; followUp: unknown; costUsd: number }[];
    const row = (uuid: string) => rows.find((r) => r.uuid === uuid)!;
    expect(row(errored.uuid).needsHuman).toBe(true);
    expect(row(errored.uuid).lastMessage!.preview).toBe('x'.repeat(160));
    expect(row(failing.uuid)).toMatchObject({ needsHuman: true, followUp: { status: 'ACTIVE', followUpCount: 2, hasErrors: true } });
    expect(row(quiet.uuid)).toMatchObject({ needsHuman: false, aiPaused: true, costUsd: 0.25, lastMessage: null, followUp: { status: 'INACTIVE', followUpCount: 0, hasErrors: false } });
    expect(row(ownA2.uuid).needsHuman).toBe(true);
  });
});

describe('hand-off: take over and hand back (issue 12)', () => {
  const takeOverReq = (id: number, as?: string) => t.request({ method: 'POST', url: `/api/conversation/${id}/take-over`, as });
  const handBackReq = (id: number, payload: unknown, as?: string) =>
    t.request({ method: 'POST', url: `/api/conversation/${id}/hand-back`, as, payload: payload as object });

  it('take over pauses the AI and cancels its waiting turn; hand back resumes at the chosen phase and answers the prospect', async () => {
    const conv = await buildConversation(t.ctx, { conversationTypeId: typeA.id, prospectId: prospectA.id, phase: 1, messages: [msg('PROSPECT', 'Anyone?', 80)] });
    await scheduleTurn(t.ctx, conv.id, 60);
    expect((await pendingJobs(t.ctx, `turn:${conv.id}`)).length).toBe(1);
    const taken = await takeOverReq(conv.id, normal.cookie);
    expect(taken.statusCode).toBe(200);
    expect(taken.json()).toEqual({ message: 'You are answering; the AI is paused', phase: 1, aiPaused: true });
    expect((await pendingJobs(t.ctx, `turn:${conv.id}`)).length).toBe(0);
    const detail = (await t.request({ method: 'GET', url: `/api/conversation/${conv.uuid}`, as: normal.cookie })).json();
    expect(detail.aiPaused).toBe(true);
    const row = (await list('?limit=100', normal.cookie)).json().conversations.find((c: { uuid: string }) => c.uuid === conv.uuid);
    expect(row.aiPaused).toBe(true);

    const back = await handBackReq(conv.id, { phase: 2 }, normal.cookie);
    expect(back.statusCode).toBe(200);
    expect(back.json()).toEqual({ message: 'The AI is answering again', phase: 2, aiPaused: false });
    const [after] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, conv.id));
    expect(after).toMatchObject({ phase: 2, aiPaused: false });
    // The prospect's last message is unanswered: the agent's turn is scheduled at once.
    expect((await pendingJobs(t.ctx, `turn:${conv.id}`)).length).toBe(1);
  });

  it('hand back without a phase resumes the phase the conversation was in (or 0 from a special code)', async () => {
    const conv = await buildConversation(t.ctx, { conversationTypeId: typeA.id, prospectId: prospectA.id, phase: 2 });
    await takeOverReq(conv.id, admin.cookie);
    expect((await handBackReq(conv.id, {}, admin.cookie)).json().phase).toBe(2);
    const stuck = await buildConversation(t.ctx, { conversationTypeId: typeA.id, prospectId: prospectA.id, phase: -2 });
    expect((await handBackReq(stuck.id, {}, admin.cookie)).json().phase).toBe(0);
  });

  it('answers 400 for a phase that is not a working phase, 409 on a web chat or a type without phases', async () => {
    const conv = await buildConversation(t.ctx, { conversationTypeId: typeA.id, prospectId: prospectA.id, phase: 1 });
    for (const phase of [3, 9999, -2]) {
      const res = await handBackReq(conv.id, { phase }, admin.cookie);
      expect(res.statusCode, String(phase)).toBe(400);
      expect(res.json().error).toContain('phase');
    }
    expect((await handBackReq(conv.id, { phase: 'one' }, admin.cookie)).statusCode).toBe(400);
    expect((await handBackReq(conv.id, { phase: 1, extra: true }, admin.cookie)).statusCode).toBe(400);
    const webTake = await takeOverReq(web.id, admin.cookie);
    expect(webTake.statusCode).toBe(409);
    expect(webTake.json().code).toBe('NOT_A_PROSPECT_CONVERSATION');
    expect((await handBackReq(web.id, {}, admin.cookie)).statusCode).toBe(409);
    const typeless = await buildConversation(t.ctx, { prospectId: prospectA.id, phase: 0 });
    expect((await handBackReq(typeless.id, {}, admin.cookie)).json().code).toBe('NO_WORKING_PHASE');
  });

  it('is authorised as every change: 401 anonymous, 404 hidden or unknown, 403 NORMAL on a web chat', async () => {
    expect((await takeOverReq(ownA1.id)).statusCode).toBe(401);
    expect((await handBackReq(ownA1.id, {})).statusCode).toBe(401);
    expect((await takeOverReq(otherB.id, normal.cookie)).statusCode).toBe(404);
    expect((await handBackReq(otherB.id, {}, stranger.cookie)).statusCode).toBe(404);
    expect((await takeOverReq(999999, admin.cookie)).statusCode).toBe(404);
    expect((await takeOverReq(web.id, normal.cookie)).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: '/api/conversation/abc/take-over', as: admin.cookie })).statusCode).toBe(400);
  });
});

describe('an ended web chat (issue 12)', () => {
  it('says so in the detail and refuses further messages with 409 and a sentence for the visitor', async () => {
    const ended = await buildConversation(t.ctx, { conversationTypeId: typeA.id, phase: 3, messages: [msg('AGENT', 'Bye!', 90)] });
    const detail = (await t.request({ method: 'GET', url: `/api/conversation/${ended.uuid}` })).json();
    expect(detail.ended).toBe(true);
    const res = await t.request({ method: 'POST', url: `/api/conversation/${ended.uuid}/written-message`, payload: { message: 'Hello?' } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'This conversation has ended. Start a new conversation to write to us again.', code: 'CONVERSATION_ENDED' });
    const [row] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, ended.id));
    expect(row.messagesCount).toBe(1);
    const ignored = await buildConversation(t.ctx, { conversationTypeId: typeA.id, phase: 9999 });
    expect((await t.request({ method: 'POST', url: `/api/conversation/${ignored.uuid}/written-message`, payload: { message: 'Hi' } })).statusCode).toBe(409);
    const open = (await t.request({ method: 'GET', url: `/api/conversation/${web.uuid}` })).json();
    expect(open.ended).toBe(false);
  });
});
