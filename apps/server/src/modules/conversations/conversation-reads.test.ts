import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { conversationReads, conversations, messages, users } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import {
  at,
  buildConversation,
  buildConversationType,
  buildMessagingAccount,
  buildProspect,
  grantAccount,
} from '../../test/conversation-factories.ts';
import { buildUser } from '../../test/factories.ts';

/** Per-user unread marks of the inbox (issue 12): PUT /api/conversation/{uuid}/read and the list's `unread`. */
let typeId: number;
let grantedProspectId: number;
let hiddenProspectId: number;

const t = useTestApp({ env: { CONVERSATION_LIST_COUNT_BUDGET_MS: '60000' } });
const admin = useUser(t, 'ADMIN');
const colleague = useUser(t, 'ADMIN');
const normal = useUser(t);
beforeAll(async () => {
  typeId = (await buildConversationType(t.ctx, { phases: 2 })).id;
  const granted = await buildMessagingAccount(t.ctx);
  const hidden = await buildMessagingAccount(t.ctx);
  await grantAccount(t.ctx, normal.id, granted.id);
  grantedProspectId = (await buildProspect(t.ctx, granted.id)).id;
  hiddenProspectId = (await buildProspect(t.ctx, hidden.id)).id;
});

const msg = (role: 'PROSPECT' | 'AGENT', message: string, dateSent: Date) => ({ role, message, dateSent });
const markRead = (uuid: string, as: string | undefined, payload?: unknown) =>
  t.request({ method: 'PUT', url: `/api/conversation/${uuid}/read`, as, ...(payload === undefined ? {} : { payload: payload as object }) });

/** The list row of `uuid` as `as` sees it. */
async function rowOf(uuid: string, as: string) {
  const res = await t.request({ method: 'GET', url: `/api/conversation/list?uuid=${uuid}`, as });
  expect(res.statusCode).toBe(200);
  const [row] = res.json().conversations as { uuid: string; unread: boolean; lastMessage: { dateSent: string } | null }[];
  return row;
}

/** A prospect message sent now (after any read mark set so far), as a channel's inbound job stores it. */
async function prospectWritesNow(conversationId: number, text: string) {
  const dateSent = new Date();
  await t.ctx.db.insert(messages).values({ conversationId, role: 'PROSPECT', message: text, dateSent });
  await t.ctx.db
    .update(conversations)
    .set({ lastMessageDate: dateSent, messagesCount: sql`${conversations.messagesCount} + 1` })
    .where(eq(conversations.id, conversationId));
}

const prospectConversation = (prospectId = grantedProspectId) =>
  buildConversation(t.ctx, {
    conversationTypeId: typeId,
    prospectId,
    messages: [msg('PROSPECT', 'Hi', at(1)), msg('AGENT', 'Hello!', at(2)), msg('PROSPECT', 'How much?', at(3))],
  });

describe('the list marks unread per user (issue 12)', () => {
  it('is unread when the prospect wrote last and the user never read it; an agent reply last is not', async () => {
    const waiting = await prospectConversation();
    const answered = await buildConversation(t.ctx, {
      conversationTypeId: typeId,
      prospectId: grantedProspectId,
      messages: [msg('PROSPECT', 'Hi', at(1)), msg('AGENT', 'Hello!', at(2))],
    });
    const empty = await buildConversation(t.ctx, { conversationTypeId: typeId, prospectId: grantedProspectId });
    expect((await rowOf(waiting.uuid, admin.cookie)).unread).toBe(true);
    expect((await rowOf(answered.uuid, admin.cookie)).unread).toBe(false);
    expect((await rowOf(empty.uuid, admin.cookie)).unread).toBe(false);
  });

  it("clears the mark for the reader only, on every later list; a colleague's mark stays", async () => {
    const c = await prospectConversation();
    const seen = (await rowOf(c.uuid, admin.cookie)).lastMessage!.dateSent;
    const res = await markRead(c.uuid, admin.cookie, { lastMessageDate: seen });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ lastReadAt: seen });
    expect((await rowOf(c.uuid, admin.cookie)).unread).toBe(false);
    expect((await rowOf(c.uuid, colleague.cookie)).unread).toBe(true);
    expect((await rowOf(c.uuid, normal.cookie)).unread).toBe(true);
  });

  it('a new prospect message makes it unread again; reading without a body reads up to now', async () => {
    const c = await prospectConversation();
    expect((await markRead(c.uuid, admin.cookie)).statusCode).toBe(200);
    expect((await rowOf(c.uuid, admin.cookie)).unread).toBe(false);
    await prospectWritesNow(c.id, 'Are you there?');
    expect((await rowOf(c.uuid, admin.cookie)).unread).toBe(true);
    // Marking read up to the message the user was shown clears it (dates compare to the millisecond).
    const seen = (await rowOf(c.uuid, admin.cookie)).lastMessage!.dateSent;
    await markRead(c.uuid, admin.cookie, { lastMessageDate: seen });
    expect((await rowOf(c.uuid, admin.cookie)).unread).toBe(false);
  });

  it('clears a mark set up to a date the API truncated from microseconds', async () => {
    const c = await buildConversation(t.ctx, { conversationTypeId: typeId, prospectId: grantedProspectId });
    await t.ctx.db
      .insert(messages)
      .values({ conversationId: c.id, role: 'PROSPECT', message: 'Precise', dateSent: sql`'2025-01-01T01:00:00.123456Z'::timestamptz` });
    await t.ctx.db.update(conversations).set({ lastMessageDate: sql`'2025-01-01T01:00:00.123456Z'::timestamptz` }).where(eq(conversations.id, c.id));
    const row = await rowOf(c.uuid, admin.cookie);
    expect(row.lastMessage!.dateSent).toBe('2025-01-01T01:00:00.123Z');
    expect(row.unread).toBe(true);
    await markRead(c.uuid, admin.cookie, { lastMessageDate: row.lastMessage!.dateSent });
    expect((await rowOf(c.uuid, admin.cookie)).unread).toBe(false);
  });
});

describe('PUT /api/conversation/{uuid}/read', () => {
  it('is idempotent and never moves the mark backwards', async () => {
    const c = await prospectConversation();
    const first = await markRead(c.uuid, admin.cookie, { lastMessageDate: at(3).toISOString() });
    const again = await markRead(c.uuid, admin.cookie, { lastMessageDate: at(3).toISOString() });
    const older = await markRead(c.uuid, admin.cookie, { lastMessageDate: at(1).toISOString() });
    expect([first, again, older].map((r) => r.json())).toEqual(Array(3).fill({ lastReadAt: at(3).toISOString() }));
    const stored = await t.ctx.db.select().from(conversationReads).where(eq(conversationReads.conversationId, c.id));
    expect(stored).toEqual([{ userId: admin.id, conversationId: c.id, lastReadAt: at(3) }]);
    expect((await rowOf(c.uuid, admin.cookie)).unread).toBe(false);
  });

  it('accepts any ISO offset, and caps a date in the future at the latest message: later messages still come in unread', async () => {
    const c = await prospectConversation();
    expect((await markRead(c.uuid, admin.cookie, { lastMessageDate: '2025-01-01T02:03:00+02:00' })).json()).toEqual({
      lastReadAt: at(3).toISOString(),
    });
    const res = await markRead(c.uuid, admin.cookie, { lastMessageDate: '2999-01-01T00:00:00.000Z' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ lastReadAt: at(3).toISOString() });
    await prospectWritesNow(c.id, 'Hello again');
    expect((await rowOf(c.uuid, admin.cookie)).unread).toBe(true);
  });

  it('answers 401 to an anonymous visitor, even on a web chat it may read', async () => {
    const web = await buildConversation(t.ctx, { conversationTypeId: typeId, messages: [msg('PROSPECT', 'Hi', at(1))] });
    const res = await markRead(web.uuid, undefined);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHORIZED');
  });

  it('answers 404 to a NORMAL user for a conversation of an account not granted to them, and for an unknown uuid', async () => {
    const hidden = await prospectConversation(hiddenProspectId);
    const res = await markRead(hidden.uuid, normal.cookie);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('Conversation not found');
    expect(await t.ctx.db.select().from(conversationReads).where(eq(conversationReads.conversationId, hidden.id))).toEqual([]);
    expect((await markRead('00000000-0000-4000-8000-000000000000', admin.cookie)).statusCode).toBe(404);
    // A granted conversation is theirs to mark.
    const own = await prospectConversation();
    expect((await markRead(own.uuid, normal.cookie)).statusCode).toBe(200);
    expect((await rowOf(own.uuid, normal.cookie)).unread).toBe(false);
  });

  it('answers 400 naming the problem for a malformed uuid or body', async () => {
    const c = await prospectConversation();
    const badUuid = await markRead('not-a-uuid', admin.cookie);
    expect(badUuid.statusCode).toBe(400);
    expect(badUuid.json().error).toMatch(/uuid/);
    const badDate = await markRead(c.uuid, admin.cookie, { lastMessageDate: 'yesterday' });
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json().error).toMatch(/lastMessageDate must be an ISO 8601 date-time/);
    const extra = await markRead(c.uuid, admin.cookie, { lastReadAt: at(3).toISOString() });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error).toMatch(/lastReadAt/);
    expect(await t.ctx.db.select().from(conversationReads).where(eq(conversationReads.conversationId, c.id))).toEqual([]);
  });

  it("goes with the user and with the conversation when either is deleted", async () => {
    const leaving = await buildUser(t.ctx, { role: 'ADMIN' });
    const c = await prospectConversation();
    await markRead(c.uuid, leaving.cookie);
    await markRead(c.uuid, admin.cookie);
    await t.ctx.db.delete(users).where(eq(users.id, leaving.id));
    expect((await t.ctx.db.select().from(conversationReads).where(eq(conversationReads.conversationId, c.id))).map((r) => r.userId)).toEqual([
      admin.id,
    ]);
    await t.ctx.db.delete(conversations).where(eq(conversations.id, c.id));
    expect(await t.ctx.db.select().from(conversationReads).where(eq(conversationReads.conversationId, c.id))).toEqual([]);
  });
});
