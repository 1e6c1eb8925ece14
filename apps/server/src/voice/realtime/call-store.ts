import { eq, sql } from 'drizzle-orm';
import twilio from 'twilio';
import { emitConversationChanged, insertMessage, loadConversation, type LoadedConversation } from '../../conversations/conversation-store.ts';
import { moveWorkingPhase } from '../../conversations/phase-moves.ts';
import { findAccountById, type LiveAccount } from '../../channels/accounts.ts';
import { twilioClient } from '../../channels/senders/twilio-client.ts';
import type { AppContext } from '../../context.ts';
import { conversations, llmUsage } from '../../db/schema/index.ts';
import type { RealtimeResponseUsage } from 'openai/resources/realtime/realtime';
import { endRealtimeCall } from './ended-call.job.ts';

/** The conversation a media stream belongs to, with its TWILIO account (token opened). */
export interface CallContext {
  loaded: LoadedConversation;
  account: LiveAccount;
  callSid: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Finds the stream's conversation from the uuid of the `start` message and its prospect's TWILIO account.
 * Null when any part is missing: the stream is then closed like a badly signed one.
 */
export async function findCall(ctx: AppContext, uuid: unknown): Promise<CallContext | null> {
  if (typeof uuid !== 'string' || !UUID.test(uuid)) return null;
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

/**
 * Twilio signs the WebSocket upgrade like a webhook: X-Twilio-Signature over the stream URL (TwiML's
 * `wss://host/api/voice/media-stream`, no parameters) with the account's Auth Token. That URL is built from
 * PUBLIC_URL's host (voice/urls.ts mediaStreamUrl): wss on https, ws on http, then the path as requested.
 */
export function verifyStreamSignature(ctx: AppContext, authToken: string, signature: string | undefined, requestUrl: string): boolean {
  if (!signature) return false;
  const base = new URL(ctx.config.PUBLIC_URL);
  const url = `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}${requestUrl}`;
  return twilio.validateRequest(authToken, signature, url, {});
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
 * USD per 1 million realtime tokens (https://openai.com/api/pricing/, late 2026): audio and text are priced
 * apart, cached input at its own rate. A model not listed costs 0, like unknown chat models.
 */
export const REALTIME_PRICES_PER_MILLION: Record<string, { audioIn: number; audioOut: number; textIn: number; textOut: number; cachedIn: number }> = {
  'gpt-realtime': { audioIn: 32, audioOut: 64, textIn: 4, textOut: 16, cachedIn: 0.4 },
  'gpt-realtime-mini': { audioIn: 10, audioOut: 20, textIn: 0.6, textOut: 2.4, cachedIn: 0.3 },
  'gpt-4o-realtime-preview': { audioIn: 40, audioOut: 80, textIn: 5, textOut: 20, cachedIn: 2.5 },
  'gpt-4o-mini-realtime-preview': { audioIn: 10, audioOut: 20, textIn: 0.6, textOut: 2.4, cachedIn: 0.3 },
};
const byLongestFirst = Object.keys(REALTIME_PRICES_PER_MILLION).sort((a, b) => b.length - a.length);

export function realtimeCostOf(model: string, usage: RealtimeResponseUsage): number {
  const name = model.toLowerCase();
  const key = byLongestFirst.find((k) => name === k || name.startsWith(`${k}-`));
  if (!key) return 0;
  const p = REALTIME_PRICES_PER_MILLION[key];
  const input = usage.input_token_details ?? {};
  const output = usage.output_token_details ?? {};
  const cached = input.cached_tokens ?? 0;
  const audioIn = input.audio_tokens ?? 0;
  const textIn = input.text_tokens ?? Math.max(0, (usage.input_tokens ?? 0) - audioIn);
  // Cached tokens are part of the input counts; they are billed at the cached rate instead.
  const uncachedIn = Math.max(0, audioIn * p.audioIn + textIn * p.textIn - cached * Math.max(p.audioIn, p.textIn));
  const audioOut = output.audio_tokens ?? 0;
  const textOut = output.text_tokens ?? Math.max(0, (usage.output_tokens ?? 0) - audioOut);
  return (uncachedIn + cached * p.cachedIn + audioOut * p.audioOut + textOut * p.textOut) / 1_000_000;
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

/** Ends or redirects the live call through Twilio's REST API (Calls/{sid}.json update). */
export async function updateCall(ctx: AppContext, account: LiveAccount, callSid: string, update: { status: 'completed' } | { twiml: string }) {
  const accountSid = typeof account.config.accountSid === 'string' ? account.config.accountSid : '';
  if (!accountSid) throw new Error(`TWILIO account ${account.id} has no config.accountSid`);
  await twilioClient(ctx.config.TWILIO_API_URL!, accountSid, account.accessToken).calls(callSid).update(update);
}

const xmlEscape = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

export const dialTwiml = (number: string) => `<Response><Dial>${xmlEscape(number)}</Dial></Response>`;
export const goodbyeTwiml = (text: string | undefined) =>
  text?.trim() ? `<Response><Say>${xmlEscape(text.trim())}</Say><Hangup/></Response>` : '<Response><Hangup/></Response>';
