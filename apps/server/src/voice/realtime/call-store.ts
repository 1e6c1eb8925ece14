/*
 * The realtime call's database side: finding the stream's conversation, storing transcript lines, booking
 * token usage and moving the phase. Prices are in prices.ts, the stream's signature check in
 * stream-signature.ts, Twilio REST updates of the live call in twilio-call-update.ts, TwiML in ../twiml.ts.
 */
import { eq, sql } from 'drizzle-orm';
import { isUuid } from '@sales-agent/shared/uuid';
import { emitConversationChanged, insertMessage, loadConversation, type LoadedConversation } from '../../conversations/conversation-store.ts';
import { moveWorkingPhase } from '../../conversations/phase-moves.ts';
import { findAccountById, type LiveAccount } from '../../channels/accounts.ts';
import type { AppContext } from '../../context.ts';
import { conversations, llmUsage } from '../../db/schema/index.ts';
import type { RealtimeResponseUsage } from 'openai/resources/realtime/realtime';
import { endRealtimeCall } from './ended-call.job.ts';
import { realtimeCostOf } from './prices.ts';

/** The conversation a media stream belongs to, with its TWILIO account (token opened). */
export interface CallContext {
  loaded: LoadedConversation;
  account: LiveAccount;
  callSid: string | null;
}


/**
 * Finds the stream's conversation from the uuid of the `start` message and its prospect's TWILIO account.
 * Null when any part is missing: the stream is then closed like a badly signed one.
 */
export async function findCall(ctx: AppContext, uuid: unknown): Promise<CallContext | null> {
  if (!isUuid(uuid)) return null;
  const [row] = await ctx.db
    .select({
      id: conversations.id,
      messagingAccountId: conversations.messagingAccountId,
      callSid: conversations.callSid,
      callDirection: conversations.callDirection,
    })
    .from(conversations)
    .where(eq(conversations.uuid, uuid.toLowerCase()))
    .limit(1);
  // Only conversations that are calls (as the voice callbacks require, voice/call-context.ts) get a stream.
  if (!row?.messagingAccountId || !row.callDirection) return null;
  const [loaded, account] = await Promise.all([loadConversation(ctx, row.id), findAccountById(ctx, row.messagingAccountId)]);
  if (!loaded || !account || account.type !== 'TWILIO') return null;
  return { loaded, account, callSid: row.callSid };
}

/** Stores one transcript line as a message and tells the detail page (at most once per realtime item). */
export async function storeTranscript(
  ctx: AppContext,
  conversation: { id: number; uuid: string },
  role: 'PROSPECT' | 'AGENT',
  itemId: string,
  text: string,
  dateSent: Date,
): Promise<void> {
  const message = text.trim();
  if (!message) return;
  const stored = await insertMessage(ctx.db, { conversationId: conversation.id, role, message, dateSent, externalId: `realtime:${itemId}` });
  if (stored) emitConversationChanged(ctx, conversation);
}

/**
 * Books one response's tokens like the chat agent books its calls: an llm_usage row (purpose `realtime`) and
 * the conversation's running token and cost totals, in one statement.
 */
export async function bookRealtimeUsage(ctx: AppContext, conversationId: number, model: string, usage: RealtimeResponseUsage): Promise<void> {
  const promptTokens = usage.input_tokens ?? 0;
  const completionTokens = usage.output_tokens ?? 0;
  if (promptTokens === 0 && completionTokens === 0) return;
  const cost = realtimeCostOf(model, usage);
  await ctx.db.execute(sql`
    with usage as (
      insert into ${llmUsage} (conversation_id, purpose, model, prompt_tokens, completion_tokens, cost_usd)
      values (${conversationId}, 'realtime', ${model}, ${promptTokens}, ${completionTokens}, ${cost})
    )
    update ${conversations} set prompt_tokens = prompt_tokens + ${promptTokens},
      completion_tokens = completion_tokens + ${completionTokens}, cost_usd = cost_usd + ${cost}
    where id = ${conversationId}`);
}

/**
 * The advance_phase tool: the agent's own conditional move (send-reply.ts moveWorkingPhase), so an admin's
 * change made meanwhile wins. Into the last phase (N) the call's conversation ends as a chat's does: the end
 * commits with the job that rates it and queues the CRM `ended` write-back (ended-call.job.ts), so the audio
 * bridge never waits on the rating. Answers the phase the conversation is in afterwards.
 */
export async function advancePhase(ctx: AppContext, loaded: LoadedConversation, from: number): Promise<number> {
  const id = loaded.conversation.id;
  const to = from + 1;
  let moved: boolean;
  if (to === loaded.phases.length) {
    moved = (await ctx.db.transaction((tx) => endRealtimeCall(ctx, id, from, tx))) !== null;
  } else {
    moved = await moveWorkingPhase(ctx, id, from, to, false);
  }
  emitConversationChanged(ctx, loaded.conversation);
  if (moved) return to;
  const [row] = await ctx.db.select({ phase: conversations.phase }).from(conversations).where(eq(conversations.id, id));
  return row?.phase ?? from;
}
