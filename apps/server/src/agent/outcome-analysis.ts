import { DEFAULT_OUTCOMES, readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { CRM_OUTCOMES } from '@sales-agent/shared/schemas/conversation-type-config';
import type { ConversationAnalysisView } from '@sales-agent/shared/schemas/agent-actions';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { ANALYSIS_JOB, enqueueCrmWriteBack } from '../conversations/conversation-outcome.ts';
import { agentSettingsOf, emitConversationChanged, loadReplyContext, type ReplyContext } from '../conversations/conversation-store.ts';
import { readLeadFields } from '../conversations/lead-fields.ts';
import type { AppContext } from '../context.ts';
import { bookings, conversationAnalyses, conversations } from '../db/schema/index.ts';
import type { JobDefinition } from '../jobs/runner.ts';
import { recordConversationEvent } from '../lib/webhook-outbox.ts';
import { askLlm } from './ask-llm.ts';
import { LlmError, type JsonAnswer } from './llm/provider.ts';
import { factsOf, playbookOf, transcriptOf } from './prompts.ts';

/**
 * Outcome analysis (issue 22, docs/agent.md "Outcome analysis"). Every end of a conversation
 * (reportConversationOutcome: the last phase reached, a call ended or never answered, a hand-over, a silence
 * past its follow-ups; not an error, -1, which only queues the write-back) queues this job. It asks the model, with a strict JSON schema, for a summary, one
 * outcome of the type's `outcomes` list (DEFAULT_OUTCOMES when unset) and a 0–100 score against the type's
 * `successRubric`, stores it (one row per conversation, the latest end wins), emits `conversation.analyzed`
 * and only then queues the CRM write-back, so the note carries the analysis. A model that fails for good
 * (after the SDK's retries) leaves no analysis; the write-back still goes, with the plain summary.
 */
const payload = z.object({ conversationId: z.number().int().positive(), ended: z.enum(CRM_OUTCOMES) });

export const analysisJob: JobDefinition<typeof payload> = {
  name: ANALYSIS_JOB,
  payload,
  async handler(ctx, { conversationId, ended }, job) {
    const loaded = await loadReplyContext(ctx, conversationId);
    if (!loaded) return; // deleted meanwhile
    // An error (-1) is not an end the team sorts: the model just failed, and a person picks it up.
    const analysis = loaded.type && ended !== 'errored' ? await analyse(ctx, loaded, ended) : null;
    const written = await ctx.db.transaction(async (tx) => {
      await ctx.jobs.complete(job, tx);
      const [row] = await tx.select({ id: conversations.id, crmContactId: conversations.crmContactId }).from(conversations).where(eq(conversations.id, conversationId));
      if (!row) return false;
      if (analysis) {
        await tx
          .insert(conversationAnalyses)
          .values({ conversationId, ...analysis })
          .onConflictDoUpdate({ target: conversationAnalyses.conversationId, set: { ...analysis, createdAt: new Date() } });
        await recordConversationEvent(tx, 'conversation.analyzed', conversationId, { analysis, ended });
      }
      await enqueueCrmWriteBack(ctx, row, ended, tx);
      return analysis !== null;
    });
    if (written) emitConversationChanged(ctx, loaded.conversation);
  },
};

/** The analysis of a conversation, or null when the model failed for good. */
async function analyse(ctx: AppContext, loaded: ReplyContext, ended: (typeof CRM_OUTCOMES)[number]): Promise<ConversationAnalysisView | null> {
  const config = readConversationTypeConfig(loaded.type!.config);
  const outcomes = config.outcomes?.length ? config.outcomes : [...DEFAULT_OUTCOMES];
  const playbook = playbookOf(loaded, agentSettingsOf(ctx, loaded.type!.config));
  const booked = await ctx.db
    .select({ start: bookings.start, timeZone: bookings.timeZone })
    .from(bookings)
    .where(and(eq(bookings.conversationId, loaded.conversation.id), eq(bookings.status, 'booked')));
  const leadFields = await readLeadFields(ctx.db, loaded.conversation.id);
  const facts = {
    ...factsOf(playbook, Math.max(0, loaded.conversation.phase), loaded.history),
    analysis: { outcomes, booked: booked.length > 0, ended, phase: loaded.conversation.phase },
  };
  const meetings = booked.length ? booked.map((b) => `${b.start.toISOString()} (${b.timeZone})`).join(', ') : 'none';
  const rubric = config.successRubric ?? 'A meeting booked is full success; a qualified, interested prospect is partial success.';
  try {
    return await askLlm(ctx, loaded.conversation.id, {
      purpose: 'analysis',
      answer: analysisAnswer(outcomes),
      model: playbook.model,
      temperature: 0,
      facts,
      messages: [
        {
          role: 'system',
          content:
            `The agent: ${playbook.rolePrompt}\nThis sales conversation has ended (${ENDED_TEXT[ended]}). Write a short summary ` +
            `(at most 3 sentences) for the sales team, pick the one outcome that fits best from: ${outcomes.map((o) => `"${o}"`).join(', ')}, ` +
            `and score it from 0 (failure) to 100 (full success) against this rubric: ${rubric}\n` +
            `Meetings booked: ${meetings}. Lead fields learnt: ${JSON.stringify(leadFields)}.\n` +
            `Answer JSON {"summary": string, "outcome": string, "score": integer}.`,
        },
        { role: 'user', content: transcriptOf(loaded.history) },
      ],
    });
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    ctx.log.warn({ conversationId: loaded.conversation.id, error: err.record }, 'the outcome analysis failed');
    return null;
  }
}

const ENDED_TEXT: Record<(typeof CRM_OUTCOMES)[number], string> = {
  ended: 'the playbook was completed',
  needsHuman: 'handed to a person',
  errored: 'stopped by an error',
  unfinished: 'the call ended before the playbook finished',
  notReached: 'the prospect was not reached',
};

/** The strict schema: the outcome is an enum of the type's list, so a model cannot invent one. */
export function analysisAnswer(outcomes: readonly string[]): JsonAnswer<ConversationAnalysisView> {
  return {
    name: 'conversation_analysis',
    schema: {
      type: 'object',
      properties: {
        summary: { type: 'string', description: 'At most 3 sentences for the sales team.' },
        outcome: { type: 'string', enum: [...outcomes] },
        score: { type: 'integer', description: '0 (failure) to 100 (full success) against the rubric' },
      },
      required: ['summary', 'outcome', 'score'],
      additionalProperties: false,
    },
    // Strict mode does not promise numeric bounds on every server, so the range is enforced here.
    parse: z.object({
      summary: z.string().trim().min(1).transform((s) => s.slice(0, 2000)),
      outcome: z.enum(outcomes as [string, ...string[]]),
      score: z.number().transform((n) => Math.min(100, Math.max(0, Math.round(n)))),
    }),
  };
}

/** The stored analysis of a conversation, or null. */
export async function readAnalysis(ctx: AppContext, conversationId: number): Promise<ConversationAnalysisView | null> {
  const [row] = await ctx.db
    .select({ summary: conversationAnalyses.summary, outcome: conversationAnalyses.outcome, score: conversationAnalyses.score })
    .from(conversationAnalyses)
    .where(eq(conversationAnalyses.conversationId, conversationId));
  return row ?? null;
}
