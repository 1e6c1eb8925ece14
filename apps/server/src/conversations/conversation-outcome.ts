import type { CrmOutcome } from '@sales-agent/shared/schemas/conversation-type-config';
import type { AppContext } from '../context.ts';
import type { EnqueueOptions } from '../jobs/runner.ts';

/**
 * The agent's one hook for "a conversation started from a CRM contact has ended" (docs/crm.md write-back).
 * It only enqueues a durable job by name, so agent/ (and voice code) needs nothing from modules/; the job
 * itself lives in modules/crm/crm-write-back.job.ts and retries until GoHighLevel has the note and stage.
 */
export const CRM_WRITE_BACK_JOB = 'crm.write-back';

export async function reportConversationOutcome(
  ctx: AppContext,
  conversation: { id: number; crmContactId?: string | null },
  outcome: CrmOutcome,
  executor?: EnqueueOptions['executor'],
): Promise<void> {
  if (!conversation.crmContactId) return;
  const enqueue = () =>
    // One job per conversation and outcome while it waits: a repeated report (a redelivered call status) adds nothing.
    ctx.jobs.enqueue(CRM_WRITE_BACK_JOB, { conversationId: conversation.id, outcome }, { singletonKey: `crm-write-back:${conversation.id}:${outcome}`, maxAttempts: 8, executor });
  // In the caller's transaction the job commits with the outcome or not at all: a failure is the caller's to
  // roll back (a failed statement has aborted that transaction anyway).
  if (executor) {
    await enqueue();
    return;
  }
  try {
    await enqueue();
  } catch (err) {
    // The conversation's own outcome is already stored; a lost CRM note must not fail the turn that ended it.
    ctx.log.error({ err, conversationId: conversation.id, outcome }, 'could not queue the CRM write-back');
  }
}
