import { and, eq, ne, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { channelMessages, conversations, messages } from '../db/schema/index.ts';
import { emitConversationChanged, insertMessage, loadConversation } from '../conversations/conversation-store.ts';
import { AppError, conflict, notFound } from '../lib/errors.ts';
import { endpointsOf, findAccountById } from './accounts.ts';
import { fetchMetaThread } from './meta-history.ts';
import { ChannelSendError } from './types.ts';

const CHANNEL_NAMES: Record<string, string> = {
  WHATSAPP: 'WhatsApp',
  TWILIO: 'Twilio SMS',
  SMS_GATEWAY: 'The SMS gateway',
};

/**
 * Rebuild history (spec §2.13, §7.6): for Instagram and Messenger the thread is read back from the Graph API
 * and replaces the stored messages, keeping who wrote each one and when. Channels with no history API answer
 * 409 with a sentence saying so; nothing changes then, nor when Meta cannot be read.
 */
export async function rebuildHistory(ctx: AppContext, conversationId: number): Promise<{ messages: number }> {
  const loaded = await loadConversation(ctx, conversationId);
  if (!loaded) throw notFound('Conversation not found', 'CONVERSATION_NOT_FOUND');
  const prospect = loaded.prospect;
  if (!prospect) throw conflict('A web chat has no channel history to rebuild from: its messages are all stored here.', 'NO_CHANNEL_HISTORY');
  const name = CHANNEL_NAMES[prospect.accountType];
  if (name) throw conflict(`${name} offers no message history to rebuild from: the stored messages are all there is.`, 'NO_CHANNEL_HISTORY');
  const [flags] = await ctx.db.execute(sql`select simulated from prospects where id = ${prospect.id}`).then(
    (r) => (r as unknown as { rows: { simulated: boolean }[] }).rows,
  );
  if (flags?.simulated) throw conflict('This prospect was simulated: Meta has no history of it to rebuild from.', 'NO_CHANNEL_HISTORY');
  const account = await findAccountById(ctx, prospect.messagingAccountId);
  if (!account) throw notFound('Messaging account not found', 'MESSAGING_ACCOUNT_NOT_FOUND');

  let thread;
  try {
    thread = await fetchMetaThread(endpointsOf(ctx), account, prospect.externalId);
  } catch (err) {
    if (!(err instanceof ChannelSendError)) throw err;
    ctx.log.warn({ conversationId, error: err.record }, 'rebuilding history: Meta could not be read');
    throw new AppError(502, 'CHANNEL_ERROR', `Meta could not be read: ${err.record.message}`);
  }

  await ctx.db.transaction(async (tx) => {
    await tx.select({ id: conversations.id }).from(conversations).where(eq(conversations.id, conversationId)).for('update');
    // Who wrote each provider id we know, before the stored messages go: our sends (channel_messages OUT → the
    // message, AI or person) and the messages stored with their own id (a person's echo from Meta's inbox).
    const known = new Map<string, boolean>();
    const result = await tx.execute(sql`
      select cm.external_id, m.written_by_human from ${channelMessages} cm join ${messages} m on m.id = cm.message_id
      where cm.messaging_account_id = ${account.id} and cm.direction = 'OUT' and m.conversation_id = ${conversationId}
      union all
      select m.external_id, m.written_by_human from ${messages} m where m.conversation_id = ${conversationId} and m.external_id is not null`);
    for (const row of (result as unknown as { rows: { external_id: string; written_by_human: boolean }[] }).rows) known.set(row.external_id, row.written_by_human);
    // SYSTEM lines (call notes, markers) are ours alone: Meta's thread does not have them, so they stay.
    await tx.delete(messages).where(and(eq(messages.conversationId, conversationId), ne(messages.role, 'SYSTEM')));
    await tx
      .update(conversations)
      .set({
        messagesCount: sql`(select count(*) from ${messages} where conversation_id = ${conversationId})`,
        lastMessageDate: sql`(select max(date_sent) from ${messages} where conversation_id = ${conversationId})`,
        updatedAt: new Date(),
      })
      .where(eq(conversations.id, conversationId));
    for (const item of thread) {
      // Through the one message-writing path (counters and dates kept by it). A page message none of our sends
      // has the id of was written by a person in Meta's own inbox.
      const stored = await insertMessage(tx, {
        conversationId,
        role: item.fromProspect ? 'PROSPECT' : 'AGENT',
        message: item.text,
        dateSent: item.createdTime,
        externalId: item.externalId,
        writtenByHuman: item.fromProspect ? false : (known.get(item.externalId) ?? true),
      });
      if (!stored) continue;
      // Redeliveries of these ids (and echoes of ours) must keep being recognised.
      await tx
        .insert(channelMessages)
        .values({ messagingAccountId: account.id, externalId: item.externalId, direction: item.fromProspect ? 'IN' : 'OUT', conversationId, messageId: stored.id })
        .onConflictDoUpdate({
          target: [channelMessages.messagingAccountId, channelMessages.externalId],
          set: { conversationId, messageId: stored.id },
        });
    }
  });
  emitConversationChanged(ctx, loaded.conversation);
  const [row] = await ctx.db.select({ count: conversations.messagesCount }).from(conversations).where(eq(conversations.id, conversationId));
  return { messages: row?.count ?? 0 };
}
