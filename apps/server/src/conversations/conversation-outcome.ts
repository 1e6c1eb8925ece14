import type { CrmOutcome } from '@sales-agent/shared/schemas/conversation-type-config';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { conversations } from '../db/schema/index.ts';
import type { EnqueueOptions } from '../jobs/runner.ts';

/**
 * The agent's one hook for "a conversation has ended": the outcome analysis (issue 22) and, for one started
 * from a CRM contact, the write-back (docs/crm.md). It only enqueues durable jobs by name, so agent/ (and voice
 * code) needs nothing from modules/; the write-back lives in modules/crm/crm-write-back.job.ts and retries
 * until GoHighLevel has the note and stage.
 */
export const CRM_WRITE_BACK_JOB = 'crm.write-back';

/** The outcome analysis job (agent/outcome-analysis.ts): it runs first and queues the CRM write-back itself. */
export const ANALYSIS_JOB = 'agent.analysis';

/**
 * A conversation ended so (`outcome`): queues its outcome analysis, which then queues the CRM write-back for
 * a CRM contact's conversation (so the note carries the analysis).
 */
export async function reportConversationOutcome(
  ctx: AppContext,
  conversation: { id: number; crmContactId?: string | null },
  outcome: CrmOutcome,
  executor?: EnqueueOptions['executor'],
): Promise<void> {
  const enqueue = () =>
    // One job per conversation and outcome while it waits: a repeated report (a redelivered call status) adds nothing.
    ctx.jobs.enqueue(ANALYSIS_JOB, { conversationId: conversation.id, ended: outcome }, { singletonKey: `analysis:${conversation.id}:${outcome}`, maxAttempts: 8, executor });
  // In the caller's transaction the job commits with the outcome or not at all: a failure is the caller's to
  // roll back (a failed statement has aborted that transaction anyway).
  if (executor) {
    await enqueue();
    return;
  }
  try {
    await enqueue();
  } catch (err) {
    // The conversation's own outcome is already stored; a lost analysis must not fail the turn that ended it.
    ctx.log.error({ err, conversationId: conversation.id, outcome }, 'could not queue the outcome analysis');
  }
}

/** The write-back job of a CRM contact's conversation, in `executor` (the analysis job's transaction). */
export async function enqueueCrmWriteBack(
  ctx: AppContext,
  conversation: { id: number; crmContactId?: string | null },
  outcome: CrmOutcome,
  executor: EnqueueOptions['executor'],
): Promise<void> {
  if (!conversation.crmContactId) return;
  await ctx.jobs.enqueue(CRM_WRITE_BACK_JOB, { conversationId: conversation.id, outcome }, { singletonKey: `crm-write-back:${conversation.id}:${outcome}`, maxAttempts: 8, executor });
}

/** The CRM job that moves a contact's opportunity to the `booked` stage (modules/crm/crm-booked-stage.job.ts). */
export const CRM_BOOKED_STAGE_JOB = 'crm.booked-stage';

/**
 * The agent booked a meeting: a CRM contact's opportunity moves to `stageOnOutcome.booked`, in `tx` (the
 * booking's transaction). Nothing for a conversation without a CRM contact.
 */
export async function reportBooked(ctx: AppContext, conversationId: number, tx: NonNullable<EnqueueOptions['executor']>): Promise<void> {
  const [row] = await tx.select({ crmContactId: conversations.crmContactId }).from(conversations).where(eq(conversations.id, conversationId));
  if (!row?.crmContactId) return;
  await ctx.jobs.enqueue(CRM_BOOKED_STAGE_JOB, { conversationId }, { singletonKey: `crm-booked:${conversationId}`, maxAttempts: 8, executor: tx });
}

/** The CRM job that writes a contact's mapped lead fields (modules/crm/crm-lead-fields.job.ts). */
export const CRM_LEAD_FIELDS_JOB = 'crm.lead-fields';

/**
 * Lead fields of a conversation were written (by the agent or a person): a CRM contact's conversation queues
 * the job that writes the fields mapped with `ghlField` to the GoHighLevel contact (one waiting job per
 * conversation: it reads the values when it runs, so a burst of writes is one update).
 */
export async function reportLeadFieldsChanged(ctx: AppContext, conversationId: number, executor: NonNullable<EnqueueOptions['executor']>): Promise<void> {
  const [row] = await executor.select({ crmContactId: conversations.crmContactId }).from(conversations).where(eq(conversations.id, conversationId));
  if (!row?.crmContactId) return;
  await ctx.jobs.enqueue(CRM_LEAD_FIELDS_JOB, { conversationId }, { singletonKey: `crm-lead-fields:${conversationId}`, maxAttempts: 8, executor });
}
