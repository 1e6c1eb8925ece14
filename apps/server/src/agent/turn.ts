import { PHASE } from '@sales-agent/shared/enums';
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { conversations } from '../db/schema/index.ts';
import { askLlm, bookDeferred, type DeferredUsage } from './ask-llm.ts';
import { withConversationLock } from './conversation-lock.ts';
import { reportConversationOutcome } from './conversation-outcome.ts';
import {
  agentSettingsOf,
  type AgentSettings,
  emitConversationChanged,
  type LoadedConversation,
  loadReplyContext,
  playbookOf,
} from './conversation-store.ts';
import { scheduleFollowUp } from './follow-up.ts';
import { type AgentErrorRecord, LlmError } from './llm/provider.ts';
import { isWorkingPhase } from './phases.ts';
import { draftRequest, type HistoryMessage, type Playbook, ratingRequest, transitionRequest, triggerRequest } from './prompts.ts';
import { leaveWorkingPhase, moveWorkingPhase, sendAgentMessage, setRating, writeGuardedReply } from './send-reply.ts';
import { endSilence, recordAgentError, startSilence } from './unanswered.ts';

/** How a turn ended; returned for logs and tests. */
export type TurnOutcome =
  | 'missing'
  | 'paused'
  | 'no-type'
  | 'not-working'
  | 'nothing-to-answer'
  | 'ignored'
  | 'phase-changed'
  | 'ended'
  | 'replied'
  | 'stale'
  | 'needs-human'
  | 'errored';

/**
 * One turn of the agent on a conversation (DESIGN.md §6, docs/agent.md): close the debounce window →
 * trigger check (first message of an inbound conversation) → transition check → draft → guard → send →
 * follow-up scheduled. Runs under the conversation lock, so turns of one conversation never overlap.
 */
export async function runConversationTurn(ctx: AppContext, conversationId: number): Promise<TurnOutcome> {
  return withConversationLock(ctx, conversationId, () => turn(ctx, conversationId));
}

async function turn(ctx: AppContext, conversationId: number): Promise<TurnOutcome> {
  // The LLM usage is booked once, after the reply is sent (or the turn ends otherwise), still under the lock.
  const usage: DeferredUsage[] = [];
  try {
    return await turnSteps(ctx, conversationId, usage);
  } finally {
    await bookDeferred(ctx, conversationId, usage);
  }
}

async function turnSteps(ctx: AppContext, conversationId: number, usage: DeferredUsage[]): Promise<TurnOutcome> {
  // Two round trips: close the window, then everything the turn reads (one snapshot).
  await closeDebounceWindow(ctx, conversationId);
  const loaded = await loadReplyContext(ctx, conversationId);
  if (!loaded) return 'missing';
  let phase = loaded.conversation.phase;
  if (loaded.conversation.aiPaused) return 'paused';
  if (!loaded.type) return 'no-type';
  const phaseCount = loaded.phases.length;
  if (!isWorkingPhase(phase, phaseCount)) return 'not-working';
  const { lastIds, history } = loaded;
  if (lastIds.prospect <= lastIds.agent) return 'nothing-to-answer';

  const settings = agentSettingsOf(ctx, loaded.type.config);
  const playbook = playbookOf(loaded, settings);
  try {
    const inbound = loaded.prospect !== null && lastIds.agent === 0;
    if (inbound && playbook.triggerConversationPrompt?.trim()) {
      const decision = await askLlm(ctx, conversationId, triggerRequest(playbook, history), usage);
      if (!decision.engage) {
        await leaveWorkingPhase(ctx, loaded, phase, PHASE.IGNORED);
        return 'ignored';
      }
    }

    const transition = await askLlm(ctx, conversationId, transitionRequest(playbook, phase, history), usage);
    if (transition.advance) {
      const next = phase + 1;
      const ends = next === phaseCount;
      if (!(await moveWorkingPhase(ctx, conversationId, phase, next, ends))) return 'phase-changed';
      phase = next;
      emitConversationChanged(ctx, loaded.conversation);
      if (ends) {
        await endConversation(ctx, loaded, playbook, history);
        return 'ended';
      }
    }

    const draft = await writeGuardedReply(
      ctx,
      conversationId,
      playbook,
      phase,
      history,
      (rejection) => draftRequest(playbook, phase, history, rejection),
      { deferred: usage },
    );
    if (!draft.ok) {
      await needsHuman(ctx, loaded, phase, 'GUARD_FAILED', `The drafted reply failed the checking prompt twice: ${draft.reason}`);
      return 'needs-human';
    }
    const { reply, needsHuman: askedForHuman, reason } = draft.value;
    if (reply) {
      const sent = await sendAgentMessage(ctx, loaded, reply, { phase, lastIds, messagesCount: loaded.conversation.messagesCount });
      if (!sent) return 'stale';
    }
    if (askedForHuman) {
      await needsHuman(ctx, loaded, phase, 'HUMAN_REQUESTED', `The agent asked for a human: ${reason || 'no reason given'}`);
      return 'needs-human';
    }
    await afterAgentReply(ctx, conversationId, settings);
    return 'replied';
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    await replyWithError(ctx, loaded, phase, err.record);
    return 'errored';
  }
}

/** The debounce window closes when the turn starts: phase -3 gives way to the phase kept in resumePhase. */
async function closeDebounceWindow(ctx: AppContext, conversationId: number): Promise<void> {
  const [row] = await ctx.db
    .update(conversations)
    .set({ phase: sql`coalesce(${conversations.resumePhase}, 0)`, resumePhase: null, updatedAt: new Date() })
    .where(sql`${conversations.id} = ${conversationId} and ${conversations.phase} = -3`)
    .returning({ id: conversations.id, uuid: conversations.uuid });
  if (row) emitConversationChanged(ctx, row);
}

/** A new silence starts after each AI reply: the unanswered entry and the first follow-up job. */
export async function afterAgentReply(ctx: AppContext, conversationId: number, settings: AgentSettings): Promise<void> {
  const entry = await startSilence(ctx, conversationId, settings.followUpDelaysMinutes[0]);
  await scheduleFollowUp(ctx, conversationId, settings, entry);
}

/** Phase N reached: the conversation ends, is rated 1–10, and leaves the unanswered list. */
async function endConversation(ctx: AppContext, loaded: LoadedConversation, playbook: Playbook, history: HistoryMessage[]) {
  const id = loaded.conversation.id;
  await endSilence(ctx, id);
  try {
    const { rating } = await askLlm(ctx, id, ratingRequest(playbook, history));
    await setRating(ctx, id, rating);
    emitConversationChanged(ctx, loaded.conversation);
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    // The conversation has ended either way; an unrated conversation is shown without a rating.
    ctx.log.warn({ conversationId: id, error: err.record }, 'rating the ended conversation failed');
  }
  await reportConversationOutcome(ctx, loaded.conversation, 'ended');
}

async function needsHuman(ctx: AppContext, loaded: LoadedConversation, phase: number, code: string, message: string) {
  await leaveWorkingPhase(ctx, loaded, phase, PHASE.NEEDS_HUMAN);
  await recordAgentError(ctx, loaded.conversation.id, {
    message,
    type: 'agent',
    code,
    status: null,
    method: null,
    url: null,
    response: null,
    details: null,
  });
  await reportConversationOutcome(ctx, loaded.conversation, 'needsHuman');
}

/**
 * The LLM failed for good: the prospect gets the type's errorPrompt text (the model is what failed, so it
 * cannot be asked to phrase it), the conversation goes to -1 and the error shows in the unanswered list.
 */
async function replyWithError(ctx: AppContext, loaded: LoadedConversation, phase: number, error: AgentErrorRecord) {
  const text = loaded.type?.errorPrompt.trim();
  if (text) {
    const [row] = await ctx.db.select({ phase: conversations.phase }).from(conversations).where(eq(conversations.id, loaded.conversation.id));
    // Sent unless someone moved the conversation meanwhile (a new message's -3 still gets the apology).
    if (row && (row.phase === phase || row.phase === PHASE.WAITING)) await sendAgentMessage(ctx, loaded, text, {});
  }
  await leaveWorkingPhase(ctx, loaded, phase, PHASE.ERRORED);
  await recordAgentError(ctx, loaded.conversation.id, error);
  ctx.log.warn({ conversationId: loaded.conversation.id, error }, 'agent turn failed; conversation set to -1');
  await reportConversationOutcome(ctx, loaded.conversation, 'errored');
}
