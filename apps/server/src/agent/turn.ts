import { addressOfLoaded, isOptedOut } from '../conversations/opt-out.ts';
import { PHASE } from '@sales-agent/shared/enums';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { afterCommit } from '../db/after-commit.ts';
import { conversations } from '../db/schema/index.ts';
import { askLlm, bookDeferred, type DeferredUsage } from './ask-llm.ts';
import { withConversationLock } from '../conversations/conversation-lock.ts';
import { reportConversationOutcome } from '../conversations/conversation-outcome.ts';
import {
  agentSettingsOf,
  type AgentSettings,
  emitConversationChanged,
  type Executor,
  type LoadedConversation,
  loadReplyContext,
  lockConversationRow,
} from '../conversations/conversation-store.ts';
import { playbookOf } from './prompts.ts';
import { knowledgeForTurn, recordPassagesUsed } from '../knowledge/turn-knowledge.ts';
import { recordUnansweredQuestion } from '../knowledge/questions.ts';
import { writeKnowledgeDraft } from './knowledge-reply.ts';
import { writeGuardedReply } from './guarded-reply.ts';
import { scheduleFollowUp } from './follow-up.ts';
import { agentError, type AgentErrorRecord } from '../conversations/agent-errors.ts';
import { LlmError } from './llm/provider.ts';
import { isWorkingPhase } from '../conversations/phases.ts';
import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { fieldsMissingFor } from '../conversations/lead-fields.ts';
import { closingRequest, draftRequest, type HistoryMessage, type Playbook, ratingRequest, transitionRequest, triggerRequest } from './prompts.ts';
import { sendAgentMessage, type SendExpectation, type TurnOrigin } from '../conversations/agent-messages.ts';
import { leaveWorkingPhase, moveWorkingPhase, setRating } from '../conversations/phase-moves.ts';
import { runToolStep } from './tools/tool-step.ts';
import { endSilence, recordAgentError, startSilence } from '../conversations/unanswered.ts';
import { type HandoffReason, openHandoff } from '../conversations/analytics-events.ts';
import { demoAgentMustNotAnswer, NO_LLM_REASON } from './llm/demo-policy.ts';

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
  | 'errored'
  | 'opted-out';

/**
 * One turn of the agent on a conversation (DESIGN.md §6, docs/agent.md): close the debounce window →
 * trigger check (first message of an inbound conversation) → transition check → draft → guard → send →
 * follow-up scheduled. Runs under the conversation lock, so turns of one conversation never overlap.
 */
export async function runConversationTurn(
  ctx: AppContext,
  conversationId: number,
  options: { origin?: TurnOrigin } = {},
): Promise<TurnOutcome> {
  return withConversationLock(ctx, conversationId, () => turn(ctx, conversationId, options.origin ?? 'channel'));
}

async function turn(ctx: AppContext, conversationId: number, origin: TurnOrigin): Promise<TurnOutcome> {
  // The LLM usage is booked once, after the reply is sent (or the turn ends otherwise), still under the lock.
  const usage: DeferredUsage[] = [];
  try {
    return await turnSteps(ctx, conversationId, usage, origin);
  } finally {
    await bookDeferred(ctx, conversationId, usage);
  }
}

async function turnSteps(ctx: AppContext, conversationId: number, usage: DeferredUsage[], origin: TurnOrigin): Promise<TurnOutcome> {
  // Two round trips: close the window, then everything the turn reads (one snapshot).
  await closeDebounceWindow(ctx, conversationId);
  const loaded = await loadReplyContext(ctx, conversationId);
  if (!loaded) return 'missing';
  let phase = loaded.conversation.phase;
  if (loaded.conversation.aiPaused) return 'paused';
  if (!loaded.type) return 'no-type';
  const phaseCount = loaded.phases.length;
  if (!isWorkingPhase(phase, phaseCount)) return 'not-working';
  const { lastIds } = loaded;
  let history: HistoryMessage[] = loaded.history;
  if (lastIds.prospect <= lastIds.agent) return 'nothing-to-answer';
  // An opted-out person gets no agent reply, whatever path scheduled this turn (docs/compliance.md).
  if (await isOptedOut(ctx.db, addressOfLoaded(loaded))) return 'opted-out';
  // A real prospect handed back to a working phase with no LLM configured: a person, not demo text. A call's
  // spoken turn is exempt: the team placed that call (Make a Call) and hears the demo agent as such.
  if (origin === 'channel' && demoAgentMustNotAnswer(ctx, loaded.prospect)) {
    await needsHuman(ctx, loaded, phase, 'NO_LLM', NO_LLM_REASON, undefined, origin);
    return 'needs-human';
  }

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
    // Lead fields a phase requires (issue 22): the agent stays and asks for them instead of moving on.
    const missing = transition.advance
      ? await fieldsMissingFor(ctx.db, conversationId, readConversationTypeConfig(loaded.type.config).leadFields ?? [], phase + 1, phaseCount)
      : [];
    if (missing.length > 0) {
      history = [...history, { role: 'SYSTEM', message: `Before moving on, ask the prospect for: ${missing.map((f) => f.label).join(', ')}.` }];
    } else if (transition.advance) {
      const next = phase + 1;
      if (next === phaseCount) {
        return closeConversation(ctx, loaded, { phase, lastIds, messagesCount: loaded.conversation.messagesCount }, playbook, history, usage, origin);
      }
      if (!(await moveWorkingPhase(ctx, conversationId, phase, next, false))) return 'phase-changed';
      phase = next;
      emitConversationChanged(ctx, loaded.conversation);
    }

    // Issue 21: the type's knowledge for what the prospect just asked, in the draft prompt with its sources.
    const knowledge = await knowledgeForTurn(ctx, loaded.type.id, history, loaded.knowledgeCollectionIds ?? null);
    const passages = knowledge?.passages ?? [];
    // Tools first (booking, custom tools): their results reach the draft as notes of this turn's history.
    const acted = await runToolStep(ctx, loaded, playbook.rolePrompt, history, usage);
    const draft = await writeKnowledgeDraft(ctx, {
      conversationId,
      playbook,
      phase,
      history: acted,
      knowledge,
      typeConfig: loaded.type.config,
      deferred: usage,
    });
    if (!draft.ok) {
      await needsHuman(ctx, loaded, phase, 'GUARD_FAILED', `The drafted reply failed the checking prompt twice: ${draft.reason}`, undefined, origin);
      return 'needs-human';
    }
    const { reply, needsHuman: askedForHuman, reason, unknownQuestion } = draft;
    const typeId = loaded.type.id;
    const recordQuestion = (executor: Executor) =>
      unknownQuestion ? recordUnansweredQuestion(executor, { conversationId, conversationTypeId: typeId, question: unknownQuestion }) : undefined;
    const expect: SendExpectation = { phase, lastIds, messagesCount: loaded.conversation.messagesCount };
    if (askedForHuman) {
      // The holding reply (if any) goes out with the hand-over, or neither does when the draft is stale.
      const message = `The agent asked for a human: ${reason || 'no reason given'}`;
      const handedOver = await needsHuman(ctx, loaded, phase, unknownQuestion ? 'NOT_IN_KNOWLEDGE' : 'HUMAN_REQUESTED', message, reply ? { text: reply, expect } : undefined, origin);
      if (handedOver) await recordQuestion(ctx.db);
      return handedOver ? 'needs-human' : 'stale';
    }
    // The reply, the silence it starts and that silence's first follow-up commit together: a process killed in
    // between would leave a silence with no follow-ups (the turn, run again, finds nothing to answer).
    const sent = await ctx.db.transaction(async (tx) => {
      const stored = await sendAgentMessage(ctx, loaded, reply, expect, tx, origin);
      if (stored) await afterAgentReply(ctx, conversationId, settings, tx);
      if (stored) await recordPassagesUsed(tx, stored, passages);
      if (stored) await recordQuestion(tx);
      return stored;
    });
    // The reply's announcement and the unanswered list's refresh went out on the commit (db/after-commit.ts).
    return sent ? 'replied' : 'stale';
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    await replyWithError(ctx, loaded, phase, err.record, origin);
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

/**
 * A new silence starts after each AI reply: the unanswered entry and the first follow-up job, in the reply's
 * transaction (`unanswered.changed` goes out on its commit).
 */
export async function afterAgentReply(ctx: AppContext, conversationId: number, settings: AgentSettings, tx: Executor): Promise<void> {
  const entry = await startSilence(ctx, conversationId, settings.followUpDelaysMinutes[0], tx);
  await scheduleFollowUp(ctx, conversationId, { settings, entry, executor: tx });
}

/*
 * How a turn stops working on a conversation — ended (N), needs a human (-2), errored (-1) — is what the CRM
 * hears about (docs/crm.md write-back). Each of these writes the phase and, for a CRM contact's conversation,
 * queues the write-back job in ONE transaction, with the rows that go with them: a process killed right after
 * the commit cannot lose the CRM note, and one killed (or failing) before it has stored none of it, so the
 * turn job runs the turn again. The write-back is queued only when the turn did set the phase: an admin who
 * moved the conversation meanwhile decided otherwise. Events are emitted after the commit.
 */

/**
 * Phase N reached: the conversation is rated 1–10, ends and leaves the unanswered list. The rating is asked
 * first so the CRM note carries it (the write-back may run on another process as soon as it commits); a
 * failed rating leaves it empty. Returns false when an admin or a human changed the conversation meanwhile.
 */
async function endConversation(
  ctx: AppContext,
  loaded: LoadedConversation,
  from: number,
  playbook: Playbook,
  history: HistoryMessage[],
  closing?: { text: string; expect: SendExpectation; origin: TurnOrigin },
) {
  const id = loaded.conversation.id;
  const rating = await rate(ctx, id, playbook, history);
  const ended = await ctx.db.transaction(async (tx) => {
    // The closing reply goes out with the end, or neither does when the conversation moved meanwhile.
    if (closing && !(await sendAgentMessage(ctx, loaded, closing.text, closing.expect, tx, closing.origin))) return null;
    if (!(await moveWorkingPhase(ctx, id, from, from + 1, true, tx))) return null;
    if (rating !== null) await setRating(ctx, id, rating, tx);
    await endSilence(ctx, id, tx);
    await reportConversationOutcome(ctx, loaded.conversation, 'ended', tx);
    await afterCommit(tx, () => emitConversationChanged(ctx, loaded.conversation));
    return true;
  });
  return ended === true;
}

/**
 * The last phase is done (issue 24 item 7): the agent writes a closing reply that answers the prospect's last
 * message and confirms what happens next, then the conversation ends. When that last message asks for
 * something the agent cannot do (the draft asks for a human), or the reply fails the checking prompt twice, the
 * conversation goes to a person instead of ending in silence.
 */
async function closeConversation(
  ctx: AppContext,
  loaded: LoadedConversation,
  expect: SendExpectation & { phase: number },
  playbook: Playbook,
  history: HistoryMessage[],
  usage: DeferredUsage[],
  origin: TurnOrigin,
): Promise<TurnOutcome> {
  const id = loaded.conversation.id;
  const phase = expect.phase;
  const draft = await writeGuardedReply(ctx, id, playbook, phase, history, (rejection) => closingRequest(playbook, phase, history, rejection), {
    deferred: usage,
  });
  if (!draft.ok) {
    await needsHuman(ctx, loaded, phase, 'GUARD_FAILED', `The closing reply failed the checking prompt twice: ${draft.reason}`, undefined, origin);
    return 'needs-human';
  }
  const { reply, needsHuman: askedForHuman, reason } = draft.value;
  if (askedForHuman) {
    const message = `The prospect's last message needs a person: ${reason || 'no reason given'}`;
    const handedOver = await needsHuman(ctx, loaded, phase, 'HUMAN_REQUESTED', message, reply ? { text: reply, expect } : undefined, origin);
    return handedOver ? 'needs-human' : 'stale';
  }
  return (await endConversation(ctx, loaded, phase, playbook, history, { text: reply, expect, origin })) ? 'ended' : 'phase-changed';
}

async function rate(ctx: AppContext, conversationId: number, playbook: Playbook, history: HistoryMessage[]): Promise<number | null> {
  try {
    const { rating } = await askLlm(ctx, conversationId, ratingRequest(playbook, history));
    return rating;
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    // The conversation ends either way; an unrated conversation is shown without a rating.
    ctx.log.warn({ conversationId, error: err.record }, 'rating the ended conversation failed');
    return null;
  }
}

/**
 * Hands the conversation to a person (-2), after the holding reply when there is one. Returns false, storing
 * nothing, when that reply is dropped as stale (a message landed meanwhile and gets its own turn).
 */
async function needsHuman(
  ctx: AppContext,
  loaded: LoadedConversation,
  phase: number,
  code: Exclude<HandoffReason, 'TAKEN_OVER'>,
  message: string,
  holding?: { text: string; expect: SendExpectation },
  origin: TurnOrigin = 'channel',
): Promise<boolean> {
  const error = agentError('agent', code, message);
  const done = await ctx.db.transaction(async (tx) => {
    const held = holding ? await sendAgentMessage(ctx, loaded, holding.text, holding.expect, tx, origin) : null;
    if (holding && !held) return null;
    await stopWorking(ctx, loaded, phase, PHASE.NEEDS_HUMAN, error, tx);
    return true;
  });
  return done === true;
}

/**
 * The LLM failed for good: the prospect gets the type's errorPrompt text (the model is what failed, so it
 * cannot be asked to phrase it), the conversation goes to -1 and the error shows in the unanswered list.
 */
async function replyWithError(ctx: AppContext, loaded: LoadedConversation, phase: number, error: AgentErrorRecord, origin: TurnOrigin) {
  const text = loaded.type?.errorPrompt.trim();
  await ctx.db.transaction(async (tx) => {
    const row = await lockConversationRow(tx, loaded.conversation.id);
    // Sent unless someone moved the conversation meanwhile (a new message's -3 still gets the apology).
    const sent = text && row && (row.phase === phase || row.phase === PHASE.WAITING) ? await sendAgentMessage(ctx, loaded, text, {}, tx, origin) : null;
    await stopWorking(ctx, loaded, phase, PHASE.ERRORED, error, tx);
  });
  ctx.log.warn({ conversationId: loaded.conversation.id, error }, 'agent turn failed; conversation set to -1');
}

/** -2 or -1 from `from` (unless someone moved the conversation), the error recorded, and the CRM told: in `tx`. */
async function stopWorking(
  ctx: AppContext,
  loaded: LoadedConversation,
  from: number,
  to: typeof PHASE.NEEDS_HUMAN | typeof PHASE.ERRORED,
  error: AgentErrorRecord,
  tx: Executor,
): Promise<void> {
  const left = await leaveWorkingPhase(ctx, loaded, from, to, tx);
  // A person pressed Take over meanwhile: the conversation is theirs; no phase, no CRM note, no error entry.
  if (!left && (await lockConversationRow(tx, loaded.conversation.id))?.aiPaused) return;
  await recordAgentError(ctx, loaded.conversation.id, error, tx);
  // needsHuman's codes are hand-off reasons (HandoffReason).
  if (left && to === PHASE.NEEDS_HUMAN) await openHandoff(tx, loaded.conversation.id, error.code as HandoffReason);
  if (left) await reportConversationOutcome(ctx, loaded.conversation, to === PHASE.NEEDS_HUMAN ? 'needsHuman' : 'errored', tx);
}
