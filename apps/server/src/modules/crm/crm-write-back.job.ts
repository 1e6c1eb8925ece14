import { phaseLabel } from '@sales-agent/shared/enums';
import { CRM_OUTCOMES, type CrmOutcome } from '@sales-agent/shared/schemas/conversation-type-config';
import { truncate } from '@sales-agent/shared/truncate';
import { and, count, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { CRM_WRITE_BACK_JOB } from '../../conversations/conversation-outcome.ts';
import type { AppContext } from '../../context.ts';
import { conversationPhases, conversations, conversationTypes, messages } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import type { JobDefinition } from '../../jobs/runner.ts';
import { readCrmSettings } from './crm-config.ts';
import { credentialsOf } from './crm.service.ts';
import { GhlClient } from './ghl.client.ts';
import { readAnalysis } from '../../agent/outcome-analysis.ts';

const payload = z.object({ conversationId: z.number().int().positive(), outcome: z.enum(CRM_OUTCOMES) });

const OUTCOME_TEXT: Record<CrmOutcome, string> = {
  ended: 'Conversation completed',
  needsHuman: 'Needs a human',
  errored: 'Stopped by an error',
  unfinished: 'Call ended before the playbook finished',
  notReached: 'Not reached',
};

/**
 * Writes a finished conversation back to GoHighLevel (docs/crm.md): the opportunity moves to the stage the
 * type's `stageOnOutcome` names for this outcome, then a note with the outcome, phase, rating, the outcome analysis (or a short summary)
 * and the conversation link is added to the contact. The stage move comes first because it is idempotent
 * (an opportunity already in the stage is left alone), so a retry after a failed note never moves twice;
 * the note is the last step, so it is added once unless GoHighLevel fails after storing it.
 */
export const crmWriteBackJob: JobDefinition<typeof payload> = {
  name: CRM_WRITE_BACK_JOB,
  payload,
  async handler(ctx, { conversationId, outcome }) {
    const [row] = await ctx.db
      .select({ conversation: conversations, config: conversationTypes.config })
      .from(conversations)
      .leftJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
      .where(eq(conversations.id, conversationId))
      .limit(1);
    const contactId = row?.conversation.crmContactId;
    if (!row || !contactId || row.config === null) return; // deleted meanwhile, or no longer tied to a CRM type
    let client: GhlClient;
    try {
      client = new GhlClient(ctx, credentialsOf(ctx, row.config));
    } catch (err) {
      // The type was unlinked or lost its credentials: nothing to retry until an admin changes the config.
      if (err instanceof AppError && err.status === 400) {
        ctx.log.warn({ conversationId, code: err.code }, 'CRM write-back skipped');
        return;
      }
      throw err;
    }
    const stageId = readCrmSettings(row.config).stageOnOutcome[outcome];
    if (stageId) await moveContactOpportunities(client, contactId, stageId);
    await client.addContactNote(contactId, await noteText(ctx, row.conversation, outcome));
  },
};

/** Moves the contact's opportunities in the stage's pipeline to the stage (those already there are left alone). */
export async function moveContactOpportunities(client: GhlClient, contactId: string, stageId: string): Promise<void> {
  const pipeline = (await client.listPipelines()).find((p) => (p.stages ?? []).some((s) => s.id === stageId));
  if (!pipeline) throw new AppError(400, 'CRM_STAGE_NOT_FOUND', `stageOnOutcome names stage ${stageId}, which no GoHighLevel pipeline has.`);
  const { opportunities } = await client.searchOpportunities({ pipelineId: pipeline.id, contactId, limit: 20 });
  for (const opportunity of opportunities) {
    if (opportunity.pipelineStageId !== stageId) await client.moveOpportunity(opportunity.id, stageId);
  }
}

type ConversationRow = typeof conversations.$inferSelect;

async function noteText(ctx: AppContext, conversation: ConversationRow, outcome: CrmOutcome): Promise<string> {
  const [{ phases }] = conversation.conversationTypeId
    ? await ctx.db.select({ phases: count() }).from(conversationPhases).where(eq(conversationPhases.conversationTypeId, conversation.conversationTypeId))
    : [{ phases: 0 }];
  const analysis = await readAnalysis(ctx, conversation.id);
  // The outcome analysis (issue 22) when it was written; without one (the model failed), the plain facts.
  const summary = analysis
    ? [`Outcome: ${analysis.outcome} (score ${analysis.score}/100)`, `Summary: ${analysis.summary}`]
    : [`Summary: ${await plainSummary(ctx, conversation)}.`];
  const lines = [
    `Sales Agent: ${OUTCOME_TEXT[outcome]}`,
    `Phase reached: ${phaseLabel(conversation.phase, phases)}`,
    `Rating: ${conversation.rating === null ? 'not rated' : `${conversation.rating}/10`}`,
    conversation.callStatus
      ? `Call: ${conversation.callStatus}${conversation.callDuration ? `, ${conversation.callDuration} s` : ''}`
      : null,
    ...summary,
    `Conversation: ${ctx.config.PUBLIC_URL}/conversation/${conversation.uuid}`,
  ];
  return lines.filter(Boolean).join('\n');
}

/** The note's summary without an analysis: the message count and the last words of each side. */
async function plainSummary(ctx: AppContext, conversation: ConversationRow): Promise<string> {
  const lastOf = async (role: 'PROSPECT' | 'AGENT') => {
    const [m] = await ctx.db
      .select({ text: messages.message })
      .from(messages)
      .where(and(eq(messages.conversationId, conversation.id), eq(messages.role, role)))
      .orderBy(desc(messages.dateSent), desc(messages.id))
      .limit(1);
    return m ? `"${truncate(m.text.replace(/\s+/g, ' ').trim(), 200)}"` : null;
  };
  const [prospectSaid, agentSaid] = await Promise.all([lastOf('PROSPECT'), lastOf('AGENT')]);
  return [
    `${conversation.messagesCount} message${conversation.messagesCount === 1 ? '' : 's'}`,
    prospectSaid && `the contact last said ${prospectSaid}`,
    agentSaid && `the agent last said ${agentSaid}`,
  ]
    .filter(Boolean)
    .join('; ');
}
