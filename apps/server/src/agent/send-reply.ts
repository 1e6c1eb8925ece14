import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { afterCommit } from '../db/after-commit.ts';
import { conversations } from '../db/schema/index.ts';
import type { StoredMessage } from './agent.service.ts';
import { askLlm, type DeferredUsage } from './ask-llm.ts';
import {
  emitConversationChanged,
  type Executor,
  insertMessage,
  type LoadedConversation,
} from './conversation-store.ts';
import { LlmError, type LlmRequest } from './llm/provider.ts';
import { guardRequest, type HistoryMessage, type Playbook } from './prompts.ts';
import { recordAgentError } from './unanswered.ts';

export type GuardedReply<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Drafts with `write` and applies the checkingPrompt guard; a failing draft is written once more with the
 * guard's reason, and a second failure gives up (the caller sends the conversation to a human).
 */
export async function writeGuardedReply<T extends { reply: string; needsHuman?: boolean }>(
  ctx: AppContext,
  conversationId: number,
  playbook: Playbook,
  phaseIndex: number,
  history: HistoryMessage[],
  write: (rejection?: string) => LlmRequest<T>,
  options: { deferred?: DeferredUsage[] } = {},
): Promise<GuardedReply<T>> {
  const { deferred } = options;
  let rejection: string | undefined;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const value = await askLlm(ctx, conversationId, write(rejection), deferred);
    const reply = value.reply.trim();
    if (!reply && !value.needsHuman) {
      throw new LlmError({ message: 'The model wrote an empty reply.', type: 'invalid_response', code: null, status: null, method: null, url: null, response: null, details: null });
    }
    if (!reply || !playbook.checkingPrompt?.trim()) return { ok: true, value: { ...value, reply } };
    const verdict = await askLlm(ctx, conversationId, guardRequest(playbook, phaseIndex, history, reply), deferred);
    if (verdict.pass) return { ok: true, value: { ...value, reply } };
    rejection = verdict.reason || 'The reply breaks the checking rules.';
  }
  return { ok: false, reason: rejection! };
}

/** What must still hold when the reply is written, or it is dropped as stale. */
export interface SendExpectation {
  /** The conversation is still in this phase (a message that arrives meanwhile sets -3). */
  phase?: number;
  /** No message (prospect's, or a person's) was stored after these ... */
  lastIds?: { prospect: number; agent: number };
  /** ... and the conversation's messagesCount is still this (read with lastIds, in the same snapshot). */
  messagesCount?: number;
}

/**
 * Stores an AI-written AGENT message and, for a prospect conversation, queues it in the outbox — in ONE
 * statement that locks the conversation row (`FOR UPDATE`) and checks that the draft is not stale: the AI
 * is not paused, the phase did not change, no message was stored since (messagesCount and the newest
 * PROSPECT/AGENT ids). The row conditions are re-checked on the newest row after any wait for the lock,
 * and every message insert updates that row in its own statement (storeProspectMessage locks it before
 * drawing the message id), so a message committed at any moment either makes this draft stale or gets an
 * id after the reply. This is what makes a reply to a message happen at most once even if two turns raced
 * past the conversation lock. Returns null when dropped.
 *
 * With an `executor` (an open transaction) the message commits with the caller's other rows, and is
 * announced (announceAgentMessage) once that transaction commits.
 */
export async function sendAgentMessage(
  ctx: AppContext,
  loaded: LoadedConversation,
  text: string,
  expect: SendExpectation,
  executor?: Executor,
  origin: TurnOrigin = 'channel',
): Promise<StoredMessage | null> {
  const id = loaded.conversation.id;
  const stored = await insertMessage(
    executor ?? ctx.db,
    { conversationId: id, role: 'AGENT', message: text },
    { lockFor: { phase: expect.phase, messagesCount: expect.messagesCount }, expectLastIds: expect.lastIds, outboxFor: outboxOf(loaded, origin), jobs: ctx.jobs },
  );
  if (stored) await afterCommit(executor ?? ctx.db, () => announceAgentMessage(ctx, loaded, stored, origin));
  return stored;
}

/**
 * Where a turn runs, which decides how its reply reaches the prospect: 'voice' is a classic call's <Gather>
 * callback, whose answer is spoken on the line (voice/classic.ts); 'channel' is everything else (the turn job,
 * follow-ups), whose reply goes through the prospect's messaging account (outbox) or, for a web chat, is read
 * on the chat page. Decided by the caller, never from the conversation's call status, which goes stale when
 * Twilio's final status callback is lost (it is not retried) and says nothing about an SMS written during a call.
 */
export type TurnOrigin = 'channel' | 'voice';

/**
 * After the message's commit: the send request a channel sender picks up, and the screens' refresh. A reply
 * that is neither queued on a channel nor spoken nor on a web chat would look answered and never arrive: it is
 * recorded as an error in the unanswered list instead.
 */
export async function announceAgentMessage(ctx: AppContext, loaded: LoadedConversation, stored: StoredMessage, origin: TurnOrigin = 'channel'): Promise<void> {
  const queued = outboxOf(loaded, origin);
  if (queued) ctx.events.emit('outbox.queued', { conversationId: loaded.conversation.id, messageId: stored.id });
  else if (origin === 'channel' && loaded.conversation.prospectId !== null) {
    await recordAgentError(ctx, loaded.conversation.id, {
      message: "The agent's reply was stored but has no channel to go out on (the prospect's messaging account is gone): it was not sent.",
      type: 'delivery',
      code: 'REPLY_NOT_DELIVERED',
      status: null,
      method: null,
      url: null,
      response: null,
      details: `message ${stored.id}`,
    });
  }
  emitConversationChanged(ctx, loaded.conversation);
}

/** The conversation to queue the reply for: a prospect's channel conversation, unless the reply is spoken on a call. */
function outboxOf(loaded: LoadedConversation, origin: TurnOrigin): LoadedConversation | undefined {
  return origin === 'voice' || !loaded.prospect ? undefined : loaded;
}

/** Twilio ends any call after its time limit (4 h by default): a "live" status older than that is stale. */
export const LONGEST_CALL_MS = 4 * 3_600_000;

/**
 * A call conversation (docs/voice.md) whose line is open: queued, initiated, ringing or in progress (null
 * until Twilio has accepted the call), and started less than the longest call ago: a status whose final
 * callback was lost does not stay live forever. For display and voice bookkeeping only; where a reply goes
 * is decided by the turn's origin (TurnOrigin).
 */
export function isOnLiveCall(
  conversation: { callDirection: string | null; callStatus: string | null; createdAt: Date | string },
  now = Date.now(),
): boolean {
  if (conversation.callDirection === null) return false;
  if (now - new Date(conversation.createdAt).getTime() > LONGEST_CALL_MS) return false;
  return conversation.callStatus === null || ['queued', 'initiated', 'ringing', 'in-progress'].includes(conversation.callStatus);
}

/**
 * Moves a working conversation from `from` to `to` unless someone changed it meanwhile. When a prospect
 * message arrived mid-turn (phase -3) the move goes into resumePhase, except the end phase, which ends the
 * conversation at once. Returns false when an admin or a human changed the conversation.
 */
export async function moveWorkingPhase(
  ctx: AppContext,
  conversationId: number,
  from: number,
  to: number,
  ends: boolean,
  executor?: Executor,
): Promise<boolean> {
  const rows = await (executor ?? ctx.db)
    .update(conversations)
    .set(
      ends
        ? { phase: to, resumePhase: null, updatedAt: new Date() }
        : {
            phase: sql`case when ${conversations.phase} = -3 then -3 else ${to}::int end`,
            resumePhase: sql`case when ${conversations.phase} = -3 then ${to}::int else null end`,
            updatedAt: new Date(),
          },
    )
    .where(
      sql`${conversations.id} = ${conversationId} and not ${conversations.aiPaused}
          and (${conversations.phase} = ${from} or (${conversations.phase} = -3 and ${conversations.resumePhase} = ${from}))`,
    )
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/**
 * Sets a non-working phase (-2, -1, 9999) from a turn, unless someone changed the conversation meanwhile or
 * a person took it over (ai_paused); returns whether it did. The screens hear of it once the caller's transaction (`executor`) commits.
 */
export async function leaveWorkingPhase(
  ctx: AppContext,
  loaded: LoadedConversation,
  from: number,
  to: number,
  executor?: Executor,
): Promise<boolean> {
  const rows = await (executor ?? ctx.db)
    .update(conversations)
    .set({ phase: to, resumePhase: null, updatedAt: new Date() })
    // Never on a conversation a person took over (ai_paused): their Take over wins over a turn that fails later.
    .where(sql`${conversations.id} = ${loaded.conversation.id} and not ${conversations.aiPaused} and (${conversations.phase} = ${from} or ${conversations.phase} = -3)`)
    .returning({ id: conversations.id });
  await afterCommit(executor ?? ctx.db, () => emitConversationChanged(ctx, loaded.conversation));
  return rows.length > 0;
}

export async function setRating(ctx: AppContext, conversationId: number, rating: number, executor?: Executor): Promise<void> {
  await (executor ?? ctx.db).update(conversations).set({ rating, updatedAt: new Date() }).where(eq(conversations.id, conversationId));
}
