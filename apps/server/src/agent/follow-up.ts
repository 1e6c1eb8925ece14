import { quietNow } from '../conversations/quiet-hours.ts';
import { addressOfLoaded, assertMayContact } from '../conversations/opt-out.ts';
import { PHASE } from '@sales-agent/shared/enums';
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { decideWindow, STANDARD_WINDOW_MS } from '../channels/windows.ts';
import { hasOptIn, NO_WHATSAPP_OPT_IN_MESSAGE } from '../conversations/consent.ts';
import { conversations, conversationTypes, unansweredConversations } from '../db/schema/index.ts';
import { AppError, askYourAdmin, conflict, notFound } from '../lib/errors.ts';
import { ConversationBusyError, withConversationLock } from '../conversations/conversation-lock.ts';
import { reportConversationOutcome } from '../conversations/conversation-outcome.ts';
import {
  agentSettingsOf,
  type AgentSettings,
  type Executor,
  type LoadedConversation,
  loadReplyContext,
  lockConversationRow,
} from '../conversations/conversation-store.ts';
import { playbookOf } from './prompts.ts';
import { agentError, type AgentErrorRecord } from '../conversations/agent-errors.ts';
import { LlmError } from './llm/provider.ts';
import { isWorkingPhase } from '../conversations/phases.ts';
import { followUpRequest } from './prompts.ts';
import { leaveWorkingPhase } from '../conversations/phase-moves.ts';
import { sendAgentMessage } from '../conversations/agent-messages.ts';
import { writeGuardedReply } from './guarded-reply.ts';
import { countFollowUp, findUnanswered, followUpJobKey, recordAgentError, type UnansweredEntry } from '../conversations/unanswered.ts';
import { openHandoff, recordFollowUp } from '../conversations/analytics-events.ts';
import { demoAgentMustNotAnswer, NO_LLM_REASON } from './llm/demo-policy.ts';

export const FOLLOW_UP_JOB = 'agent.follow-up';

/**
 * Makes the durable follow-up job match the unanswered entry: one job per conversation (singletonKey
 * `follow-up:<id>`), due at earliestReplyDateTime, while the entry is ACTIVE and below the maximum.
 * `known` skips the look-ups the caller has already made; `executor` (an open transaction) reads and writes
 * through it, so the job commits with the caller's rows (e.g. the follow-up job freeing its own key).
 */
export async function scheduleFollowUp(
  ctx: AppContext,
  conversationId: number,
  known: { settings?: AgentSettings; entry?: UnansweredEntry; executor?: Executor } = {},
): Promise<void> {
  const { executor } = known;
  const key = followUpJobKey(conversationId);
  const entry = known.entry ?? (await findUnanswered(ctx, conversationId, executor));
  let settings = known.settings;
  if (!settings && entry?.status === 'ACTIVE') settings = await settingsOfConversation(ctx, conversationId, executor ?? ctx.db);
  if (!entry || entry.status !== 'ACTIVE' || !settings || entry.followUpCount >= settings.maxFollowUps) {
    await ctx.jobs.cancel(key, executor);
    return;
  }
  // One statement: a waiting follow-up job is moved to the entry's time, else one is added.
  await ctx.jobs.enqueue(FOLLOW_UP_JOB, { conversationId }, { runAt: entry.earliestReplyDateTime, singletonKey: key, replace: true, executor });
}

/**
 * A follow-up that failed its checking prompt hands the conversation to a person (-2) like a turn does
 * (agent/turn.ts needsHuman): the phase, the error in the unanswered list and, for a CRM contact's
 * conversation, the `needsHuman` write-back commit in ONE transaction, so a process killed after the commit
 * cannot lose the CRM note. The write-back is queued only when this did set the phase (an admin who moved
 * the conversation meanwhile decided otherwise). Events go out after the commit.
 */
async function handOver(ctx: AppContext, loaded: LoadedConversation, phase: number, message: string): Promise<void> {
  const error = agentError('agent', 'GUARD_FAILED', message);
  const conversationId = loaded.conversation.id;
  await ctx.db.transaction(async (tx) => {
    const left = await leaveWorkingPhase(ctx, loaded, phase, PHASE.NEEDS_HUMAN, tx);
    // A person pressed Take over while the follow-up was written: theirs now, no hand-over to record.
    if (!left && (await lockConversationRow(tx, conversationId))?.aiPaused) return;
    await recordAgentError(ctx, conversationId, error, tx);
    if (left) await openHandoff(tx, conversationId, 'GUARD_FAILED');
    if (left) await reportConversationOutcome(ctx, loaded.conversation, 'needsHuman', tx);
  });
}

/** The agent settings of the conversation's type; undefined without a type (no follow-ups then). */
async function settingsOfConversation(ctx: AppContext, conversationId: number, db: Executor): Promise<AgentSettings | undefined> {
  const [row] = await db
    .select({ config: conversationTypes.config })
    .from(conversations)
    .innerJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
    .where(eq(conversations.id, conversationId));
  return row ? agentSettingsOf(ctx, row.config) : undefined;
}

/**
 * Instagram and Messenger accept the AI's messages only within 24 hours of the prospect's last message
 * (channels/windows.ts); a follow-up due later would only fail at the send. WhatsApp's window is handled at
 * the send, where a configured template can still go out.
 */
async function closedMessagingWindow(ctx: AppContext, loaded: LoadedConversation): Promise<AgentErrorRecord | null> {
  const type = loaded.prospect?.accountType;
  if (type !== 'INSTAGRAM' && type !== 'FACEBOOK' && type !== 'WHATSAPP') return null;
  const result = await ctx.db.execute(sql`
    select max(date_sent) as at from messages where conversation_id = ${loaded.conversation.id} and role = 'PROSPECT'`);
  const at = (result as unknown as { rows: { at: string | Date | null }[] }).rows[0]?.at;
  if (type === 'WHATSAPP') {
    // Outside 24 h only a template may go out (decided at the send), and only to a person who opted in.
    const outside = !at || Date.now() - new Date(at).getTime() > STANDARD_WINDOW_MS;
    if (!outside || (await hasOptIn(ctx.db, addressOfLoaded(loaded)))) return null;
    return agentError('messaging-window', 'NO_WHATSAPP_OPT_IN', `Not sent: ${NO_WHATSAPP_OPT_IN_MESSAGE}`);
  }
  const decision = decideWindow({ type, config: {} }, at ? new Date(at) : null, false);
  return decision.ok ? null : decision.record;
}

export type FollowUpOutcome = 'sent' | 'not-due' | 'skipped' | 'failed';

/**
 * Writes a follow-up from the phase's followUpPrompt and sends it. The scheduled run (`manual: false`)
 * quietly skips unless everything still calls for it: the entry is ACTIVE and due, the prospect has not
 * replied, the phase is a working one with a followUpPrompt, the AI is not paused and the maximum is not
 * reached. The admin's button (`manual: true`) sends now and answers a clear 4xx when it cannot.
 */
export async function sendFollowUp(ctx: AppContext, conversationId: number, options: { manual: boolean }): Promise<FollowUpOutcome> {
  const { manual } = options;
  const refuse = (error: AppError): FollowUpOutcome => {
    if (manual) throw error;
    return 'skipped';
  };
  try {
    return await withConversationLock(ctx, conversationId, async () => {
      const loaded = await loadReplyContext(ctx, conversationId);
      if (!loaded) return refuse(notFound('Conversation not found', 'CONVERSATION_NOT_FOUND'));
      if (!loaded.type) return refuse(conflict('The conversation has no conversation type.', 'NO_CONVERSATION_TYPE'));
      const { conversation } = loaded;
      const phase = conversation.phase;
      if (!isWorkingPhase(phase, loaded.phases.length)) {
        return refuse(conflict('A follow-up can only be sent while the conversation is in a working phase.', 'NOT_WORKING_PHASE'));
      }
      if (conversation.aiPaused) return refuse(conflict('The AI is paused on this conversation: a person is answering.', 'AI_PAUSED'));
      try {
        await assertMayContact(ctx.db, addressOfLoaded(loaded), 'A follow-up');
      } catch (err) {
        return refuse(err as AppError);
      }
      const settings = agentSettingsOf(ctx, loaded.type.config);
      const { lastIds, history } = loaded;
      if (!manual) {
        const entry = await findUnanswered(ctx, conversationId);
        if (!entry || entry.status !== 'ACTIVE') return 'skipped';
        if (entry.earliestReplyDateTime.getTime() > Date.now()) return 'not-due';
        if (entry.followUpCount >= settings.maxFollowUps) return 'skipped';
        if (lastIds.prospect > lastIds.agent || lastIds.agent === 0) return 'skipped';
        if (!loaded.phases[phase].followUpPrompt?.trim()) return 'skipped';
        // Quiet hours and the type's business hours: wait for the next allowed moment; the job reschedules itself at the entry's new time.
        const quiet = await quietNow(ctx.config, addressOfLoaded(loaded), loaded.type.config);
        if (quiet) {
          await ctx.db.update(unansweredConversations).set({ earliestReplyDateTime: quiet.until }).where(eq(unansweredConversations.conversationId, conversationId));
          return 'not-due';
        }
      }
      const closed = await closedMessagingWindow(ctx, loaded);
      if (closed) {
        // Skipped, and recorded so the unanswered list says why this prospect got no nudge.
        if (!manual) await recordAgentError(ctx, conversationId, closed);
        return refuse(conflict(closed.message, closed.code === 'NO_WHATSAPP_OPT_IN' ? 'NO_WHATSAPP_OPT_IN' : 'OUTSIDE_MESSAGING_WINDOW'));
      }

      if (demoAgentMustNotAnswer(ctx, loaded.prospect)) {
        // No demo text to a real prospect (a conversation that was working before the LLM was removed).
        await handOver(ctx, loaded, phase, NO_LLM_REASON);
        if (manual) throw new AppError(409, 'NO_LLM', NO_LLM_REASON, askYourAdmin('The AI model'));
        return 'failed';
      }
      const playbook = playbookOf(loaded, settings);
      let written;
      try {
        written = await writeGuardedReply(ctx, conversationId, playbook, phase, history, (rejection) =>
          followUpRequest(playbook, phase, history, rejection),
        );
      } catch (err) {
        if (!(err instanceof LlmError)) throw err;
        // No apology for a follow-up nobody asked for: the error is recorded and the silence goes on.
        await recordAgentError(ctx, conversationId, err.record);
        if (manual) throw new AppError(502, 'LLM_FAILED', `The follow-up could not be written: ${err.record.message}`);
        return 'failed';
      }
      if (!written.ok) {
        await handOver(ctx, loaded, phase, `The follow-up failed the checking prompt twice: ${written.reason}`);
        if (manual) throw new AppError(422, 'GUARD_FAILED', 'The follow-up did not pass the checking prompt; the conversation now needs a human.');
        return 'failed';
      }
      // The follow-up and its count commit together: a process killed in between would leave a follow-up the
      // entry does not count, and the job, run again, would send a second one.
      const sent = await ctx.db.transaction(async (tx) => {
        const stored = await sendAgentMessage(ctx, loaded, written.value.reply, { phase, lastIds, messagesCount: conversation.messagesCount }, tx);
        if (stored) await countFollowUp(ctx, conversationId, settings.followUpDelaysMinutes, tx);
        if (stored) await recordFollowUp(tx, conversationId, stored.dateSent);
        return stored;
      });
      if (!sent) return refuse(conflict('The conversation changed while the follow-up was written. Try again.', 'CONVERSATION_CHANGED'));
      return 'sent';
    });
  } catch (err) {
    if (err instanceof ConversationBusyError && manual) {
      throw conflict('The agent is answering this conversation right now. Try again in a moment.', 'CONVERSATION_BUSY');
    }
    throw err;
  }
}
