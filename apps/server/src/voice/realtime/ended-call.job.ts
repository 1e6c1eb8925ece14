import { z } from 'zod';
import { askLlm } from '../../agent/ask-llm.ts';
import { reportConversationOutcome } from '../../conversations/conversation-outcome.ts';
import {
  agentSettingsOf,
  emitConversationChanged,
  type Executor,
  loadReplyContext,
  type ReplyContext,
  lockConversationRow,
} from '../../conversations/conversation-store.ts';
import { playbookOf } from '../../agent/prompts.ts';
import { LlmError } from '../../agent/llm/provider.ts';
import { ratingRequest } from '../../agent/prompts.ts';
import { moveWorkingPhase, setRating } from '../../conversations/phase-moves.ts';
import { endSilence } from '../../conversations/unanswered.ts';
import type { AppContext } from '../../context.ts';
import type { JobDefinition } from '../../jobs/runner.ts';

/**
 * A realtime call that reaches the last phase (N) ends like a chat that does (agent/turn.ts endConversation):
 * the conversation is rated 1–10 and, for a CRM contact's conversation, the `ended` write-back is queued with
 * the rating, so the note carries it. The rating is an LLM call, which must not hold the live audio bridge,
 * so the phase commits with this durable job and the job asks for the rating, then stores it and queues the
 * write-back in one transaction with its own completion: a process killed anywhere leaves either the job to
 * run again or everything done, never an ended call without its rating attempt or its CRM note.
 */
export const ENDED_CALL_JOB = 'voice.ended-call';
export const endedCallJobKey = (conversationId: number) => `voice-ended-call:${conversationId}`;

/**
 * The `advance_phase` move into phase N, in `tx`: the end (the agent's conditional move, so an admin's change
 * made meanwhile wins), the cleared unanswered entry and the ended-call job. Answers whether it ended the
 * conversation; the unanswered list hears of it on the commit.
 */
export async function endRealtimeCall(ctx: AppContext, conversationId: number, from: number, tx: Executor) {
  if (!(await moveWorkingPhase(ctx, conversationId, from, from + 1, true, tx))) return null;
  await endSilence(ctx, conversationId, tx);
  await ctx.jobs.enqueue(ENDED_CALL_JOB, { conversationId }, { singletonKey: endedCallJobKey(conversationId), maxAttempts: 8, executor: tx });
  return true;
}

const payload = z.object({ conversationId: z.number().int().positive() });

export const endedCallJob: JobDefinition<typeof payload> = {
  name: ENDED_CALL_JOB,
  payload,
  async handler(ctx, { conversationId }, job) {
    const loaded = await loadReplyContext(ctx, conversationId);
    // Deleted, or moved out of N by an admin meanwhile: they decided otherwise, nothing to rate or report.
    if (!loaded?.type || loaded.conversation.phase !== loaded.phases.length) return;
    const rating = await rate(ctx, loaded);
    const reported = await ctx.db.transaction(async (tx) => {
      // Done with what it stores: run again after a crash, it finds itself done or nothing stored.
      await ctx.jobs.complete(job, tx);
      const row = await lockConversationRow(tx, conversationId);
      if (!row || row.phase !== loaded.phases.length) return false;
      if (rating !== null) await setRating(ctx, conversationId, rating, tx);
      await reportConversationOutcome(ctx, row, 'ended', tx);
      return true;
    });
    if (reported) emitConversationChanged(ctx, loaded.conversation);
  },
};

/** The chat's rating prompt over the call's transcript as stored so far; a failed rating leaves it empty. */
async function rate(ctx: AppContext, loaded: ReplyContext): Promise<number | null> {
  const playbook = playbookOf(loaded, agentSettingsOf(ctx, loaded.type!.config));
  try {
    const { rating } = await askLlm(ctx, loaded.conversation.id, ratingRequest(playbook, loaded.history));
    return rating;
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    ctx.log.warn({ conversationId: loaded.conversation.id, error: err.record }, 'rating the ended call failed');
    return null;
  }
}
