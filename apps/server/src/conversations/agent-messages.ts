import type { AppContext } from '../context.ts';
import { afterCommit } from '../db/after-commit.ts';
import { emitConversationChanged, type Executor, insertMessage, type LoadedConversation, type StoredMessage } from './conversation-store.ts';
import { recordAgentError } from './unanswered.ts';
import { DEFAULT_AI_DISCLOSURE, readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { and, eq, sql } from 'drizzle-orm';
import { messages } from '../db/schema/index.ts';
import { channelOfAccount } from './opt-out.ts';

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
  delivery: { optOutNotice?: boolean } = {},
): Promise<StoredMessage | null> {
  const id = loaded.conversation.id;
  const db = executor ?? ctx.db;
  const message = origin === 'channel' && !delivery.optOutNotice ? await withAiDisclosure(db, loaded, text) : text;
  const stored = await insertMessage(
    db,
    { conversationId: id, role: 'AGENT', message },
    { lockFor: { phase: expect.phase, messagesCount: expect.messagesCount }, expectLastIds: expect.lastIds, outboxFor: outboxOf(loaded, origin), jobs: ctx.jobs, optOutNotice: delivery.optOutNotice },
  );
  if (stored) await afterCommit(executor ?? ctx.db, () => announceAgentMessage(ctx, loaded, stored, origin));
  return stored;
}

/** Channels whose first AI message carries the disclosure line (issue 23). */
const DISCLOSED_CHANNELS = new Set(['sms', 'whatsapp']);

/**
 * The text with the type's AI disclosure line before it when this is the AI's first message to a prospect on
 * SMS or WhatsApp (none yet in the conversation that a person did not write); else the text unchanged. The
 * insert that follows holds the conversation row lock and drops a stale draft, so two first messages cannot
 * both pass. The opt-out confirmation never carries it (one message, nothing else in it).
 */
async function withAiDisclosure(db: Executor, loaded: LoadedConversation, text: string): Promise<string> {
  if (!loaded.prospect || !DISCLOSED_CHANNELS.has(channelOfAccount(loaded.prospect.accountType))) return text;
  const setting = readConversationTypeConfig(loaded.type?.config).aiDisclosure;
  if (setting === false) return text;
  const [earlier] = await db
    .select({ one: sql<number>`1` })
    .from(messages)
    .where(and(eq(messages.conversationId, loaded.conversation.id), eq(messages.role, 'AGENT'), eq(messages.writtenByHuman, false)))
    .limit(1);
  if (earlier) return text;
  return `${setting ?? DEFAULT_AI_DISCLOSURE}\n${text}`;
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
