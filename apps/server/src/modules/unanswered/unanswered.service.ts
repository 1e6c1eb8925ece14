import { asc, eq } from 'drizzle-orm';
import type { UnansweredStatus } from '@sales-agent/shared/enums';
import { resumeFollowUps } from '../../agent/agent.service.ts';
import type { AppContext } from '../../context.ts';
import { conversations, messagingAccounts, prospects, unansweredConversations } from '../../db/schema/index.ts';
import { notFound } from '../../lib/errors.ts';
import { redactText } from '../../lib/redact.ts';

const u = unansweredConversations;

/** Every unanswered conversation with its conversation and prospect (spec §2.9, §3); ADMIN only. */
export async function listUnansweredConversations(ctx: AppContext) {
  const rows = await ctx.db
    .select({
      id: u.id,
      status: u.status,
      followUpCount: u.followUpCount,
      earliestReplyDateTime: u.earliestReplyDateTime,
      errors: u.errors,
      uuid: conversations.uuid,
      phase: conversations.phase,
      prospectUuid: prospects.uuid,
      pageName: messagingAccounts.pageName,
    })
    .from(u)
    .innerJoin(conversations, eq(conversations.id, u.conversationId))
    .leftJoin(prospects, eq(prospects.id, conversations.prospectId))
    .leftJoin(messagingAccounts, eq(messagingAccounts.id, prospects.messagingAccountId))
    .orderBy(asc(u.earliestReplyDateTime), asc(u.id));
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    followUpCount: r.followUpCount,
    earliestReplyDateTime: r.earliestReplyDateTime.toISOString(),
    // Rows stored before redaction existed are cleaned on the way out as well.
    errors: redactText(r.errors),
    conversation: {
      uuid: r.uuid,
      phase: r.phase,
      Prospect: r.prospectUuid === null ? null : { uuid: r.prospectUuid, messagingAccount: { pageName: r.pageName ?? '' } },
    },
  }));
}

export async function deleteUnansweredConversation(ctx: AppContext, id: number): Promise<void> {
  const gone = await ctx.db.delete(u).where(eq(u.id, id)).returning({ conversationId: u.conversationId });
  if (gone.length === 0) throw notFound('Unanswered conversation not found');
  ctx.events.emit('unanswered.changed', { conversationId: gone[0].conversationId });
}

/**
 * ACTIVE rows are the ones the agent's follow-up scheduler works on; INACTIVE ones it skips. Re-activating
 * asks the agent to schedule the next follow-up again.
 */
export async function setUnansweredStatus(ctx: AppContext, id: number, status: UnansweredStatus): Promise<void> {
  const updated = await ctx.db
    .update(u)
    .set({ status, updatedAt: new Date() })
    .where(eq(u.id, id))
    .returning({ conversationId: u.conversationId });
  if (updated.length === 0) throw notFound('Unanswered conversation not found');
  if (status === 'ACTIVE') await resumeFollowUps(ctx, updated[0].conversationId);
  ctx.events.emit('unanswered.changed', { conversationId: updated[0].conversationId });
}
