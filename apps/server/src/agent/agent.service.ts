/**
 * The boundary between the conversation routes (modules/conversations) and the AI agent (agent/).
 * Routes call only these functions; everything behind them (turn loop, LLM providers, follow-ups,
 * locking) is the agent's business. See docs/agent.md.
 */
import { recordConversationEvent } from '../lib/webhook-outbox.ts';
import { PHASE } from '@sales-agent/shared/enums';
import { eq, sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../context.ts';
import type { CustomToolConfig } from '@sales-agent/shared/schemas/custom-tools';
import { CustomToolError, callCustomTool } from './tools/http-tools.ts';
import { conversations, conversationTypes } from '../db/schema/index.ts';
import { badRequest, notFound } from '../lib/errors.ts';
import {
  agentSettingsOf,
  startingVersion,
  emitConversationChanged,
  insertMessage,
  lastMessageIds,
  loadConversation,
  lockConversationRow,
  storeProspectMessage,
  type StoredMessage,
} from '../conversations/conversation-store.ts';
import { scheduleFollowUp, sendFollowUp } from './follow-up.ts';
import { isValidPhase, isWorkingPhase } from '../conversations/phases.ts';
import { scheduleTurn, turnJobKey } from './turn.job.ts';
import { endSilence, followUpJobKey } from '../conversations/unanswered.ts';
import { reportConversationOutcome } from '../conversations/conversation-outcome.ts';
import { addressOfLoaded, assertMayContact, webChatAddress } from '../conversations/opt-out.ts';
import { applyOptOutIntent, confirmOptOutChange } from '../channels/opt-out-words.ts';

/** Issue 21: the knowledge test box's answer (modules/knowledge). */
export { previewKnowledgeAnswer } from './knowledge-preview.ts';

const conversationNotFound = () => notFound('Conversation not found', 'CONVERSATION_NOT_FOUND');

function cleanText(text: string): string {
  const message = typeof text === 'string' ? text.trim() : '';
  if (!message) throw badRequest('The message must not be empty.', 'EMPTY_MESSAGE');
  return message;
}

/** Creates a web-chat conversation of a type (phase 0) and stores its initialMessage as the first AGENT message. */
export async function startWebConversation(ctx: AppContext, conversationTypeId: number): Promise<{ id: number; uuid: string }> {
  const [type] = await ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, conversationTypeId)).limit(1);
  if (!type) throw notFound('Conversation type not found', 'CONVERSATION_TYPE_NOT_FOUND');
  const created = await ctx.db.transaction(async (tx) => {
    const [conversation] = await tx
      .insert(conversations)
      .values({ conversationTypeId: type.id, ...startingVersion(type.id), phase: 0 })
      .returning({ id: conversations.id, uuid: conversations.uuid });
    await recordConversationEvent(tx, 'conversation.started', conversation.id);
    const initial = type.initialMessage?.trim();
    if (initial) await insertMessage(tx, { conversationId: conversation.id, role: 'AGENT', message: initial });
    return conversation;
  });
  emitConversationChanged(ctx, created);
  return created;
}

/**
 * Stores a prospect's message (web visitor or channel) and schedules the agent's turn (debounce window,
 * phase -3 meanwhile). Redelivered channel messages (same externalId) are ignored: answers null.
 * The reply cancels the pending follow-up. No turn while the AI is paused or outside the working phases.
 */
export async function receiveProspectMessage(
  ctx: AppContext,
  conversationId: number,
  text: string,
  options: { externalId?: string; dateSent?: Date; webChat?: boolean } = {},
): Promise<StoredMessage | null> {
  const message = cleanText(text);
  const debounceOf = (typeConfig: string | null) => agentSettingsOf(ctx, typeConfig).debounceSeconds;
  // One statement stores the message, opens the debounce window and ends the silence (see
  // storeProspectMessage); the turn that answers it is queued in the same transaction, so a process killed
  // right after the commit cannot leave a message that nobody answers (as channels/receive.ts does).
  const result = await ctx.db.transaction(async (tx) => {
    const stored = await storeProspectMessage(tx, {
      conversationId,
      message,
      externalId: options.externalId,
      dateSent: options.dateSent,
      followUpJobKey: followUpJobKey(conversationId),
    });
    // A web-chat visitor's STOP or "don't contact me" (docs/compliance.md "Web chat"): no turn answers it.
    const optOut = stored?.stored && options.webChat
      ? await applyOptOutIntent(ctx, tx, { address: webChatAddress(stored.conversation.uuid), channel: 'web', prospectId: null }, { id: conversationId, typeConfig: stored.typeConfig }, message)
      : null;
    if (optOut && stored) stored.waiting = false;
    if (stored?.stored && stored.waiting) await scheduleTurn(ctx, conversationId, debounceOf(stored.typeConfig), tx);
    return stored ? { ...stored, optOut } : null;
  });
  if (!result) throw conversationNotFound();
  if (!result.stored) return null;
  emitConversationChanged(ctx, result.conversation);
  if (result.unansweredChanged) ctx.events.emit('unanswered.changed', { conversationId });
  // Again after the commit: a turn running meanwhile holds `turn:<id>` (the enqueue above was a no-op) and
  // may have looked for -3 before this commit (docs/agent.md, Concurrency 4); this one runs after -3 is
  // visible, so either it queues the turn or the running turn sees -3. A waiting turn is only moved.
  if (result.waiting) await scheduleTurn(ctx, conversationId, debounceOf(result.typeConfig));
  if (result.optOut) await confirmOptOutChange(ctx, conversationId, result.optOut);
  return result.stored;
}

/** A person writes as the business on a prospect conversation: stored as AGENT, sent, and the AI pauses there. */
export async function sendHumanMessage(ctx: AppContext, conversationId: number, text: string, actor: Actor): Promise<StoredMessage> {
  const message = cleanText(text);
  const loaded = await loadConversation(ctx, conversationId);
  if (!loaded) throw conversationNotFound();
  const stored = await ctx.db.transaction(async (tx) => {
    await lockConversationRow(tx, conversationId);
    // A person may not write to someone who opted out either (409 OPTED_OUT); the delivery job checks again.
    await assertMayContact(tx, addressOfLoaded(loaded), 'Sending a message to this person');
    const row = await insertMessage(tx, { conversationId, role: 'AGENT', message, writtenByHuman: true, authorUserId: actor.id }, { outboxFor: loaded, jobs: ctx.jobs });
    if (!row) return null;
    if (loaded.prospect) {
      // The AI stays silent here until an admin sets a working phase (setConversationPhase).
      await tx.update(conversations).set({ aiPaused: true, updatedAt: new Date() }).where(eq(conversations.id, conversationId));
    }
    return row;
  });
  if (!stored) throw conversationNotFound();
  // A person took over this silence: no automatic nudge on top of their message.
  if (loaded.prospect) ctx.events.emit('outbox.queued', { conversationId, messageId: stored.id });
  // ... and its pending follow-up leaves the unanswered list (an entry holding errors stays, count reset).
  await endSilence(ctx, conversationId);
  ctx.log.info({ conversationId, userId: actor.id }, 'human message sent');
  emitConversationChanged(ctx, loaded.conversation);
  return stored;
}

/** Writes and sends a follow-up now from the phase's followUpPrompt; answers the notice to show. */
export async function triggerFollowUp(ctx: AppContext, conversationId: number): Promise<{ message: string }> {
  await sendFollowUp(ctx, conversationId, { manual: true });
  await scheduleFollowUp(ctx, conversationId);
  return { message: 'Follow-up sent' };
}

/**
 * Admin sets any phase code (spec §4); setting a working phase resumes a paused AI and, when the prospect's
 * last message is unanswered, schedules a turn. Setting -3 keeps the working phase to resume and schedules
 * the turn that closes the window.
 */
export async function setConversationPhase(ctx: AppContext, conversationId: number, phase: number): Promise<void> {
  const loaded = await loadConversation(ctx, conversationId);
  if (!loaded) throw conversationNotFound();
  const phaseCount = loaded.phases.length;
  if (!isValidPhase(phase, phaseCount)) {
    throw badRequest(`Phase must be -3, -2, -1, 0 to ${phaseCount}, or 9999.`, 'INVALID_PHASE');
  }
  const current = loaded.conversation;
  const working = isWorkingPhase(phase, phaseCount);
  let resumePhase: number | null = null;
  if (phase === PHASE.WAITING) {
    resumePhase = current.phase === PHASE.WAITING ? current.resumePhase : isWorkingPhase(current.phase, phaseCount) ? current.phase : 0;
  }
  const paused = working ? false : current.aiPaused;
  const debounceSeconds = agentSettingsOf(ctx, loaded.type?.config).debounceSeconds;
  const ended = phase === phaseCount && current.phase !== phaseCount;
  // The phase and what it calls for commit together: a process killed between them would leave a conversation
  // waiting (-3) with no turn to close the window, or an unanswered message nobody answers.
  const turnDelaySeconds = await ctx.db.transaction(async (tx) => {
    await tx
      .update(conversations)
      .set({ phase, resumePhase, ...(working ? { aiPaused: false } : {}), updatedAt: new Date() })
      .where(eq(conversations.id, conversationId));
    let delay: number | null = null;
    if (phase === PHASE.WAITING && !paused) delay = debounceSeconds;
    else if (working) {
      const ids = await lastMessageIds(tx, conversationId);
      if (ids.prospect > ids.agent) delay = 0;
    }
    if (delay !== null) await scheduleTurn(ctx, conversationId, delay, tx);
    // A person ending the conversation (phase N) ends it for the CRM too (docs/crm.md write-back).
    if (ended) await reportConversationOutcome(ctx, current, 'ended', tx);
    // Webhooks (docs/api.md "Events"), with the change: a person's phase change, not the internal -3.
    if (phase !== current.phase && phase !== PHASE.WAITING) {
      await recordConversationEvent(tx, 'conversation.phase_changed', conversationId, { previousPhase: current.phase, newPhase: phase, by: 'person' });
      if (ended || (phase === PHASE.IGNORED && current.phase !== PHASE.IGNORED)) {
        await recordConversationEvent(tx, 'conversation.ended', conversationId, { outcome: ended ? 'ended' : 'ignored', by: 'person' });
      }
    }
    return delay;
  });
  emitConversationChanged(ctx, current);
  // Again after the commit, as receiveProspectMessage does: a turn running meanwhile holds `turn:<id>` (the
  // enqueue above was a no-op) and may have looked for -3 before this commit (docs/agent.md, Concurrency 4).
  if (turnDelaySeconds !== null) await scheduleTurn(ctx, conversationId, turnDelaySeconds);
}

/**
 * Re-schedules the automatic follow-up from the conversation's unanswered entry, e.g. after an admin sets
 * the entry ACTIVE again (modules/unanswered). A no-op when the entry is missing, INACTIVE or at its maximum.
 */
export async function resumeFollowUps(ctx: AppContext, conversationId: number): Promise<void> {
  await scheduleFollowUp(ctx, conversationId);
}

/**
 * Cancels the conversation's waiting turn and follow-up, for a conversation that is being deleted: they
 * would only come due later to find nothing to do.
 */
export async function cancelConversationJobs(ctx: AppContext, conversationId: number): Promise<void> {
  await ctx.jobs.cancel(turnJobKey(conversationId));
  await ctx.jobs.cancel(followUpJobKey(conversationId));
}

/**
 * The "Test tool" button (issue 22): runs a type's custom HTTP tool once with sample arguments, exactly as the
 * agent would call it, and answers what came back or why it failed (nothing is stored on a conversation).
 */
export async function testCustomTool(ctx: AppContext, tool: CustomToolConfig, args: Record<string, unknown>) {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  try {
    const { status, value } = await callCustomTool(ctx, tool, args);
    return { ok: true, status, result: typeof value === 'string' ? value : JSON.stringify(value), durationMs: durationMs() };
  } catch (err) {
    const status = err instanceof CustomToolError ? err.status : null;
    return { ok: false, status, result: err instanceof Error ? err.message : String(err), durationMs: durationMs() };
  }
}
