import { PHASE } from '@sales-agent/shared/enums';
import { eq, gt, lt, and, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { afterCommit } from '../db/after-commit.ts';
import { conversations, messages } from '../db/schema/index.ts';
import { reportConversationOutcome } from '../conversations/conversation-outcome.ts';
import { emitConversationChanged, insertMessage, loadConversation, storeProspectMessage } from '../conversations/conversation-store.ts';
import { isWorkingPhase } from '../conversations/phases.ts';
import { runConversationTurn } from '../agent/turn.ts';
import { endSilence, followUpJobKey, recordAgentError } from '../conversations/unanswered.ts';
import type { CallContext } from './call-context.ts';
import { bookCallCost, callPrices, costOfSpeechRecognition } from './call-costs.ts';
import { callNotices, utter, voiceSettingsOf, type Utterance } from './speech.ts';
import { gatherTwiml, hangupTwiml } from './twiml.ts';
import { callbackUrls } from './urls.ts';

/**
 * The classic speech pipeline (useRealtimeApi false, docs/voice.md): Twilio's speech <Gather> hears the
 * caller, the agent answers with the same turn as a chat (phases, transition check, guard, error prompt:
 * agent/turn.ts), and the answer is spoken (Azure audio by <Play>, else <Say>) inside the next <Gather>.
 */

/** Turns in a row without a word from the caller before the agent says goodbye. */
export const SILENT_TURNS_TO_HANG_UP = 2;
export const STILL_THERE = 'Are you still there?';
export const GOODBYE_SILENT = "I can't hear you, so I'll let you go. Thank you for your time. Goodbye!";
export const GOODBYE = 'Thank you for your time. Goodbye!';
const FALLBACK_ERROR = 'Sorry, something went wrong on our side. We will get back to you.';

const languageOf = (call: CallContext) => voiceSettingsOf(call.type?.config).tts.language;

/** The call was answered: the playbook's initialMessage is the opening line, then the first <Gather>. */
export async function answerClassicCall(ctx: AppContext, call: CallContext, callSid: string): Promise<string> {
  const opening = call.type?.initialMessage?.trim();
  const lines: Utterance[] = [];
  if (opening) {
    // Keyed by the call: Twilio asking for the TwiML again (a retried request) stores the line once.
    const stored = await insertMessage(ctx.db, {
      conversationId: call.conversation.id,
      role: 'AGENT',
      message: opening,
      externalId: `call-opening:${callSid}`,
    });
    if (stored) emitConversationChanged(ctx, call.conversation);
    lines.push(await utter(ctx, call, opening));
  }
  return gatherTwiml(lines, callbackUrls(ctx.config, call.conversation.uuid).gather(0), languageOf(call), callNotices(call.type?.config));
}

/**
 * One <Gather> answer. Speech → stored as the prospect's message → the agent's turn, run now (the caller is
 * waiting on the line, so there is no debounce window) → the agent's new messages spoken. Silence → "Are you
 * still there?", and after SILENT_TURNS_TO_HANG_UP silent turns a polite goodbye. When the turn leaves the
 * working phases (ended, needs a human, errored, ignored) the agent's last words are followed by a goodbye.
 */
export async function classicTurn(
  ctx: AppContext,
  call: CallContext,
  speechResult: string | undefined,
  silences: number,
  /**
   * `identity`: the callback's (voice/callback-identity.ts), stored with the caller's line; `replay`: this
   * very callback was handled before (Twilio's retry, or a replay): nothing is stored, booked or run again,
   * and the answer is rebuilt from what the first delivery stored.
   */
  request: { identity?: string; replay?: boolean } = {},
): Promise<string> {
  const { conversation } = call;
  const urls = callbackUrls(ctx.config, conversation.uuid);
  const language = languageOf(call);
  const externalId = request.identity ? `voice-gather:${request.identity}` : undefined;
  if (!request.replay) await bookCallCost(ctx, conversation.id, costOfSpeechRecognition(callPrices(ctx.config)));

  const speech = (speechResult ?? '').trim();
  if (!speech) {
    if (silences + 1 >= SILENT_TURNS_TO_HANG_UP) return hangupTwiml([await utter(ctx, call, GOODBYE_SILENT)]);
    return gatherTwiml([await utter(ctx, call, STILL_THERE)], urls.gather(silences + 1), language);
  }

  if (request.replay) {
    const [heard] = externalId
      ? await ctx.db
          .select({ id: messages.id })
          .from(messages)
          .where(and(eq(messages.conversationId, conversation.id), eq(messages.externalId, externalId)))
          .limit(1)
      : [];
    // The first delivery is still being answered (Twilio gave up waiting on it): listen again.
    if (!heard) return gatherTwiml([], urls.gather(0), language);
    return answerAfter(ctx, call, heard.id);
  }

  const result = await storeProspectMessage(ctx.db, { conversationId: conversation.id, message: speech, externalId, followUpJobKey: followUpJobKey(conversation.id) });
  if (!result?.stored) return hangupTwiml([await utter(ctx, call, GOODBYE)]);
  emitConversationChanged(ctx, result.conversation);
  if (result.unansweredChanged) ctx.events.emit('unanswered.changed', { conversationId: conversation.id });

  try {
    // Spoken on this call: the reply is the TwiML below, never also a text message (conversations/agent-messages.ts TurnOrigin).
    const outcome = await runConversationTurn(ctx, conversation.id, { origin: 'voice' });
    ctx.log.debug({ conversationId: conversation.id, outcome }, 'classic call turn');
  } catch (err) {
    // The caller must hear something: the playbook's error prompt, then the call ends.
    ctx.log.error({ err, conversationId: conversation.id }, 'classic call turn failed');
    await markCallTurnFailed(ctx, call, err);
    return hangupTwiml([await utter(ctx, call, call.type?.errorPrompt?.trim() || FALLBACK_ERROR)]);
  }
  // Silence on a call is handled on the line (above), not by follow-up messages hours later.
  await endSilence(ctx, conversation.id);
  return answerAfter(ctx, call, result.stored.id);
}

/** The agent's lines written after the caller's line `heardId` (and before their next one), then listen or goodbye. */
async function answerAfter(ctx: AppContext, call: CallContext, heardId: number): Promise<string> {
  const { conversation } = call;
  const urls = callbackUrls(ctx.config, conversation.uuid);
  const language = languageOf(call);
  const [next] = await ctx.db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.conversationId, conversation.id), eq(messages.role, 'PROSPECT'), gt(messages.id, heardId)))
    .orderBy(messages.id)
    .limit(1);
  const replies = await ctx.db
    .select({ message: messages.message })
    .from(messages)
    .where(and(eq(messages.conversationId, conversation.id), eq(messages.role, 'AGENT'), gt(messages.id, heardId), ...(next ? [lt(messages.id, next.id)] : [])))
    .orderBy(messages.id);
  const lines: Utterance[] = [];
  for (const reply of replies) lines.push(await utter(ctx, call, reply.message));

  const after = await loadConversation(ctx, conversation.id);
  const working = !!after && !after.conversation.aiPaused && (after.conversation.phase === -3 || isWorkingPhase(after.conversation.phase, after.phases.length));
  if (!working) return hangupTwiml([...lines, await utter(ctx, call, GOODBYE)]);
  return gatherTwiml(lines, urls.gather(0), language);
}

/**
 * The inline turn threw (not an LLM failure, which the turn handles itself: e.g. the conversation was busy, or
 * the database failed): nothing will answer the caller's words now that the call ends, and no turn job was
 * queued for them. The conversation leaves -3 (or its working phase) for -1 with the error in the unanswered
 * list and the CRM told, as a failed chat turn does, unless a person took it over meanwhile.
 */
async function markCallTurnFailed(ctx: AppContext, call: CallContext, err: unknown): Promise<void> {
  const id = call.conversation.id;
  try {
    await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .update(conversations)
        .set({ phase: PHASE.ERRORED, resumePhase: null, updatedAt: new Date() })
        .where(sql`${conversations.id} = ${id} and not ${conversations.aiPaused} and (${conversations.phase} = -3 or (${conversations.phase} >= 0
          and ${conversations.phase} < (select count(*) from conversation_phases p where p.conversation_type_id = ${conversations.conversationTypeId})))`)
        .returning({ id: conversations.id, crmContactId: conversations.crmContactId });
      if (!row) return;
      await recordAgentError(
        ctx,
        id,
        {
          message: `The agent's turn on this call failed: ${err instanceof Error ? err.message : String(err)}`.slice(0, 2000),
          type: 'call',
          code: 'CALL_TURN_FAILED',
          status: null,
          method: null,
          url: null,
          response: null,
          details: err instanceof Error ? err.name : null,
        },
        tx,
      );
      await reportConversationOutcome(ctx, row, 'errored', tx);
      await afterCommit(tx, () => emitConversationChanged(ctx, call.conversation));
    });
  } catch (cause) {
    ctx.log.error({ err: cause, conversationId: id }, 'could not mark the failed call turn');
  }
}
