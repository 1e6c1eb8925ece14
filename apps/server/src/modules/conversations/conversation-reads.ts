import { eq, sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { conversationReads, conversations } from '../../db/schema/index.ts';
import type { AccessibleConversation } from './conversation-policy.ts';

/**
 * Per-user read state of the inbox (issue 12, docs/conversations.md "Inbox"): each team member has their own
 * unread marks, kept on the server so every device of theirs shows the same, and a colleague's reading
 * changes nothing for them.
 */

/**
 * Marks `conv` read by `actor` up to `lastMessageDate` (the latest message the user has seen), or up to
 * everything it holds now without one. The mark only moves forwards, so a late or repeated call (two tabs,
 * a retried request) changes nothing. A named date is capped at the conversation's latest message (now when it
 * has none), so a client cannot mark messages read that have not arrived yet.
 */
export async function markConversationRead(
  ctx: AppContext,
  actor: Actor,
  conv: AccessibleConversation,
  lastMessageDate: string | undefined,
): Promise<{ lastReadAt: string }> {
  const r = conversationReads;
  const latest = sql`(select ${conversations.lastMessageDate} from ${conversations} where ${eq(conversations.id, conv.id)})`;
  const upToNow = sql`greatest(now(), coalesce(${latest}, now()))`;
  // A date the client names can only be one it has seen: capped at the latest stored message, not at now(), so a
  // message stored a moment later (even in the same millisecond as this call) still comes in unread.
  const target =
    lastMessageDate === undefined ? upToNow : sql`least(${new Date(lastMessageDate).toISOString()}::timestamptz, coalesce(${latest}, now()))`;
  const [row] = await ctx.db
    .insert(r)
    .values({ userId: actor.id, conversationId: conv.id, lastReadAt: target })
    .onConflictDoUpdate({
      target: [r.userId, r.conversationId],
      set: { lastReadAt: sql`greatest(${sql.identifier('conversation_reads')}.${sql.identifier('last_read_at')}, excluded.last_read_at)` },
    })
    .returning({ lastReadAt: r.lastReadAt });
  // The user's other devices show it read without a reload (the inbox's stream, conversation-events.ts).
  ctx.events.emit('conversation.read', { userId: actor.id, conversationId: conv.id, uuid: conv.uuid });
  return { lastReadAt: row.lastReadAt.toISOString() };
}

/**
 * Unread for the viewer: the latest message is the prospect's (or the visitor's) and was sent after the
 * viewer's read mark, or they never read it. Compared to the millisecond, the unit the API gives dates in: a
 * client marking read up to a lastMessage.dateSent it was shown (truncated from microseconds) must clear it.
 */
export function isUnreadFor(lastMessage: { role: string; dateSent: string } | null, lastReadAt: Date | null): boolean {
  if (!lastMessage || lastMessage.role !== 'PROSPECT') return false;
  if (lastReadAt === null) return true;
  return Date.parse(lastMessage.dateSent) > lastReadAt.getTime();
}
