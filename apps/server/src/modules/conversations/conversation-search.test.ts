import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { receiveProspectMessage, sendHumanMessage } from '../../agent/agent.service.ts';
import { conversations, conversationSearch, messages, messagingAccounts, prospects } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { searchCondition } from './workspace.service.ts';
import { at, buildConversation, buildMessagingAccount, buildProspect, grantAccount } from '../../test/conversation-factories.ts';

/**
 * The inbox search document (issue 24, migration "conversation-search-triggers"): kept right by the database on
 * every write — new messages, edits, deletions, contact edits and merges — and read by GET /api/conversation/list?q=.
 */

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const alice = useUser(t);

/** A word no other test writes. */
const word = (stem: string) => `${stem}${Math.random().toString(36).slice(2, 8)}`;

/** A prospect conversation on an account of its own (granted to `grant`), with one first message. */
async function prospectConversation(options: { type?: 'SMS_GATEWAY' | 'INSTAGRAM'; externalId?: string; text?: string; grant?: number[] } = {}) {
  const account = await buildMessagingAccount(t.ctx);
  await t.ctx.db.update(messagingAccounts).set({ type: options.type ?? 'INSTAGRAM' }).where(eq(messagingAccounts.id, account.id));
  await Promise.all((options.grant ?? []).map((userId) => grantAccount(t.ctx, userId, account.id)));
  const { id: prospectId } = await buildProspect(t.ctx, account.id);
  if (options.externalId) await t.ctx.db.update(prospects).set({ externalId: options.externalId }).where(eq(prospects.id, prospectId));
  const firstMessage = { role: 'PROSPECT' as const, message: options.text ?? 'Hello there', dateSent: at(1) };
  return { conversation: await buildConversation(t.ctx, { prospectId, messages: [firstMessage] }) };
}

const found = async (q: string, as: string) => {
  const res = await t.request({ method: 'GET', url: `/api/conversation/list?limit=100&q=${encodeURIComponent(q)}`, as });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { conversations: { uuid: string }[] }).conversations.map((c) => c.uuid);
};
const contactOf = async (uuid: string) =>
  (await t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: admin.cookie })).json().contact.id as number;

describe('GET /api/conversation/list?q=: the search document', () => {
  it('finds a word of a message stored later, by the prospect or a teammate, as a word or its start', async () => {
    const { conversation } = await prospectConversation();
    const later = word('pergola');
    const reply = word('trellis');
    expect(await found(later, admin.cookie)).toEqual([]);
    await receiveProspectMessage(t.ctx, conversation.id, `Do you build a ${later}?`);
    expect(await found(later, admin.cookie)).toEqual([conversation.uuid]);
    expect(await found(later.slice(0, -2).toUpperCase(), admin.cookie)).toEqual([conversation.uuid]);
    await sendHumanMessage(t.ctx, conversation.id, `Yes, with a ${reply} too`, { id: admin.id, email: admin.email, role: 'ADMIN' });
    expect(await found(`${later} ${reply}`, admin.cookie)).toEqual([conversation.uuid]);
  });

  it('finds the contact by an email set on it later, and no longer by the email it replaced', async () => {
    const { conversation } = await prospectConversation({ grant: [alice.id] });
    const contactId = await contactOf(conversation.uuid);
    const first = `${word('ana')}@example.com`;
    const second = `${word('silva')}@example.org`;
    const patch = (payload: object) => t.request({ method: 'PATCH', url: `/api/contacts/${contactId}`, payload, as: alice.cookie });
    expect((await patch({ email: first, name: 'Quentin Marlowe' })).statusCode).toBe(200);
    expect(await found(first, alice.cookie)).toEqual([conversation.uuid]);
    expect(await found('quentin marlowe', alice.cookie)).toContain(conversation.uuid);
    expect((await patch({ email: second })).statusCode).toBe(200);
    expect(await found(second, alice.cookie)).toEqual([conversation.uuid]);
    expect(await found(first, alice.cookie)).toEqual([]);
  });

  it('finds a contact phone typed by a teammate by any run of its digits; a merge brings both handles under one search', async () => {
    const sms = await prospectConversation({ type: 'SMS_GATEWAY', externalId: '+15550199321' });
    const ig = await prospectConversation({ type: 'INSTAGRAM' });
    const igContact = await contactOf(ig.conversation.uuid);
    await t.request({ method: 'PATCH', url: `/api/contacts/${igContact}`, payload: { phone: '+1 (213) 373-9917' }, as: admin.cookie });
    expect(await found('373 9917', admin.cookie)).toEqual([ig.conversation.uuid]);
    expect(await found('0199321', admin.cookie)).toEqual([sms.conversation.uuid]);

    const smsContact = await contactOf(sms.conversation.uuid);
    const email = `${word('merged')}@example.com`;
    await t.request({ method: 'PATCH', url: `/api/contacts/${smsContact}`, payload: { email }, as: admin.cookie });
    const merged = await t.request({ method: 'POST', url: `/api/contacts/${smsContact}/merge`, payload: { otherContactId: igContact }, as: admin.cookie });
    expect(merged.statusCode, merged.body).toBe(200);
    expect((await found(email, admin.cookie)).sort()).toEqual([sms.conversation.uuid, ig.conversation.uuid].sort());
  });

  it('a deleted message, one the prospect deleted and an edited-away word no longer match; a deleted conversation neither', async () => {
    const gone = word('gazebo');
    const kept = word('awning');
    const { conversation } = await prospectConversation({ text: `About the ${gone}` });
    await receiveProspectMessage(t.ctx, conversation.id, `And the ${kept}`);
    expect(await found(gone, admin.cookie)).toEqual([conversation.uuid]);
    const [first] = await t.ctx.db.select({ id: messages.id }).from(messages).where(eq(messages.conversationId, conversation.id)).orderBy(messages.id).limit(1);
    const res = await t.request({ method: 'DELETE', url: `/api/conversation/${conversation.id}/messages`, payload: { messageIds: [first.id] }, as: admin.cookie });
    expect(res.statusCode, res.body).toBe(200);
    expect(await found(gone, admin.cookie)).toEqual([]);
    expect(await found(kept, admin.cookie)).toEqual([conversation.uuid]);

    // The prospect deletes or edits a message on their side (channels/receive.ts): the row stays, its words go.
    const unsaid = word('canopy');
    const edited = word('veranda');
    await receiveProspectMessage(t.ctx, conversation.id, `A ${unsaid}`);
    await receiveProspectMessage(t.ctx, conversation.id, `A ${edited}`);
    await t.ctx.db.update(messages).set({ deletedAt: new Date() }).where(sql`${messages.conversationId} = ${conversation.id} and ${messages.message} like ${`%${unsaid}`}`);
    const replacement = word('porch');
    await t.ctx.db
      .update(messages)
      .set({ message: `A ${replacement}`, previousMessage: `A ${edited}`, editedAt: new Date() })
      .where(sql`${messages.conversationId} = ${conversation.id} and ${messages.message} like ${`%${edited}`}`);
    expect(await found(unsaid, admin.cookie)).toEqual([]);
    expect(await found(edited, admin.cookie)).toEqual([]);
    expect(await found(replacement, admin.cookie)).toEqual([conversation.uuid]);
    expect(await found(kept, admin.cookie)).toEqual([conversation.uuid]);

    expect((await t.request({ method: 'DELETE', url: `/api/conversation/${conversation.id}`, as: admin.cookie })).statusCode).toBe(200);
    expect(await found(kept, admin.cookie)).toEqual([]);
    expect(await t.ctx.db.select().from(conversationSearch).where(eq(conversationSearch.conversationId, conversation.id))).toEqual([]);
  });

  it('a NORMAL user finds only conversations of the accounts granted to them', async () => {
    const shared = word('solarium');
    const mine = await prospectConversation({ text: `The ${shared}`, grant: [alice.id] });
    const theirs = await prospectConversation({ text: `The ${shared}` });
    expect((await found(shared, admin.cookie)).sort()).toEqual([mine.conversation.uuid, theirs.conversation.uuid].sort());
    expect(await found(shared, alice.cookie)).toEqual([mine.conversation.uuid]);
  });

  it('finds a web chat by the email its visitor typed, and keeps a huge conversation document bounded', async () => {
    const webChat = await buildConversation(t.ctx, { messages: [{ role: 'PROSPECT', message: 'hi', dateSent: at(1) }] });
    const email = `${word('visitor')}@example.com`;
    await receiveProspectMessage(t.ctx, webChat.id, `Mail me at ${email} please`);
    expect(await found(email, admin.cookie)).toEqual([webChat.uuid]);

    // 9,000 distinct words and one too long to search: stored without error, the document stops at 8,000.
    const many = Array.from({ length: 9_000 }, (_, i) => `w${i}x`).join(' ');
    await t.ctx.db.insert(messages).values({ conversationId: webChat.id, role: 'PROSPECT', message: `${many} ${'z'.repeat(80)}` });
    const [{ lexemes }] = await t.ctx.db
      .select({ lexemes: sql<number>`length(${conversationSearch.doc})`.mapWith(Number) })
      .from(conversationSearch)
      .where(eq(conversationSearch.conversationId, webChat.id));
    expect(lexemes).toBe(8_000);
    expect(await found(email, admin.cookie)).toEqual([webChat.uuid]);
  });

  it('answers the same conversations through the GIN ids and through the walk of the list (more matches than idsMax)', async () => {
    const shared = word('cabana');
    const a = await prospectConversation({ text: `A ${shared}` });
    const b = await prospectConversation({ text: `Another ${shared}` });
    const matching = async (idsMax: number) =>
      (
        await t.ctx.db
          .select({ uuid: conversations.uuid })
          .from(conversations)
          .where(await searchCondition(t.ctx, shared, idsMax))
      ).map((r) => r.uuid).sort();
    const both = [a.conversation.uuid, b.conversation.uuid].sort();
    expect(await matching(2)).toEqual(both);
    expect(await matching(1)).toEqual(both);
    expect(await matching(0)).toEqual(both);
  });
});
