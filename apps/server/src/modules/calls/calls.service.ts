import { assertMayContact, phoneAddress } from '../../conversations/opt-out.ts';
import { eq, sql } from 'drizzle-orm';
import type { PlaceCallBody } from '@sales-agent/shared/schemas/call';
import { E164_MESSAGE, isE164 } from '@sales-agent/shared/schemas/call';
import type { Actor, AppContext } from '../../context.ts';
import { conversations, conversationTypes } from '../../db/schema/index.ts';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.ts';
import { contactWaitMessage, quietNow } from '../../conversations/quiet-hours.ts';
import { createCallConversation } from '../../conversations/call-conversation.ts';
import { emitConversationChanged } from '../../conversations/conversation-store.ts';
import { findAccountById } from '../../channels/accounts.ts';
import { twilioClient } from '../../channels/senders/twilio-client.ts';
import { accountSidOf } from '../../voice/call-context.ts';
import { callbackUrls, recordingStorageKey } from '../../voice/urls.ts';
import { loadConversationToView } from '../conversations/conversation-policy.ts';
import { recordingStorage } from '../../lib/recording-storage.ts';
import { latencySummary } from '../../voice/realtime/response-latency.ts';

/** Twilio errors a caller can act on, said plainly (the code stays in the sentence for support). */
const TWILIO_HINTS: Record<number, string> = {
  20003: "Twilio refused the messaging account's credentials. Check its Auth Token and config.accountSid.",
  21211: "Twilio says the 'To' number is not a valid phone number.",
  21215: 'Twilio says this account may not call this number: enable the country under Voice Geographic Permissions.',
  21210: "Twilio says the account's number (pageId) is not a verified caller id of this account.",
  21212: "Twilio says the account's number (pageId) is not a valid caller id.",
  21217: 'Twilio says the phone number is not valid.',
  21219: 'Twilio says a trial account may only call verified numbers.',
};

/**
 * Spec §7.3 POST /api/admin/call/{phone}: places an outbound call (docs/voice.md) on the TWILIO messaging
 * account of the conversation type. The conversation (a prospect for that phone on that account) exists
 * before Twilio is asked, because the callback URLs carry its uuid; when Twilio refuses the call it is
 * removed again and the refusal is answered as a sentence.
 */
export async function placeCall(ctx: AppContext, phone: string, body: { conversationTypeId: number; contactId: string | null; useRealtimeApi: boolean }): Promise<{ uuid: string }> {
  if (!isE164(phone)) throw badRequest(E164_MESSAGE, 'INVALID_PHONE');
  const [type] = await ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, body.conversationTypeId)).limit(1);
  if (!type) throw notFound('Conversation type not found', 'CONVERSATION_TYPE_NOT_FOUND');
  const account = type.messagingAccountId === null ? null : await findAccountById(ctx, type.messagingAccountId);
  if (!account || account.type !== 'TWILIO') {
    throw badRequest(
      'This conversation type has no Twilio messaging account to call from. Choose a Twilio SMS account on the conversation type first.',
      'NO_TWILIO_ACCOUNT',
    );
  }
  const accountSid = accountSidOf(account);
  if (!accountSid) {
    throw badRequest('The Twilio messaging account has no accountSid in its config. Add { "accountSid": "AC…" } to it.', 'TWILIO_ACCOUNT_INCOMPLETE');
  }
  if (!isE164(account.pageId)) {
    throw badRequest(`The Twilio messaging account's number (pageId) is not in E.164 format, so it cannot call.`, 'TWILIO_ACCOUNT_INCOMPLETE');
  }

  await assertMayContact(ctx.db, phoneAddress(phone), 'Calling this number');
  const quiet = await quietNow(ctx.config, phoneAddress(phone), type.config);
  if (quiet) throw conflict(contactWaitMessage('Calling this number', quiet), 'QUIET_HOURS');
  const created = (await ctx.db.transaction((tx) =>
    createCallConversation(tx, {
      accountId: account.id,
      phone,
      conversationTypeId: type.id,
      direction: 'outbound',
      useRealtimeApi: body.useRealtimeApi,
      crmContactId: body.contactId,
    }),
  ))!;

  const urls = callbackUrls(ctx.config, created.uuid);
  try {
    const call = await twilioClient(ctx.config.TWILIO_API_URL!, accountSid, account.accessToken).calls.create({
      to: phone,
      from: account.pageId,
      url: urls.twiml,
      method: 'POST',
      statusCallback: urls.status,
      statusCallbackMethod: 'POST',
      statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
      record: true,
      recordingStatusCallback: urls.recording,
      recordingStatusCallbackMethod: 'POST',
      recordingStatusCallbackEvent: ['completed'],
      // Async detection: the agent starts talking at once; the verdict arrives at the amd callback, after the
      // greeting's beep (DetectMessageEnd) so a voicemail message lands on the recording.
      machineDetection: 'DetectMessageEnd',
      asyncAmd: 'true',
      asyncAmdStatusCallback: urls.amd,
      asyncAmdStatusCallbackMethod: 'POST',
    });
    // The status may have moved on already (a callback can beat this answer): only the sid and a missing status are set.
    await ctx.db
      .update(conversations)
      .set({ callSid: call.sid, callStatus: sql`coalesce(${conversations.callStatus}, ${call.status ?? 'queued'})`, updatedAt: new Date() })
      .where(eq(conversations.id, created.id));
  } catch (err) {
    await ctx.db.delete(conversations).where(eq(conversations.id, created.id));
    throw twilioCallError(ctx, err);
  }
  ctx.log.info({ conversationId: created.id, accountId: account.id }, 'outbound call placed');
  emitConversationChanged(ctx, created);
  return { uuid: created.uuid };
}

/** Twilio's refusal as a 4xx sentence; Twilio out of reach or failing as 502. Never includes credentials. */
function twilioCallError(ctx: AppContext, err: unknown): AppError {
  const e = err as { status?: number; code?: number; message?: string };
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    const code = e.code ? ` (Twilio error ${e.code})` : '';
    const sentence = (e.code && TWILIO_HINTS[e.code]) || `Twilio refused the call: ${e.message || `HTTP ${e.status}`}`;
    return new AppError(400, 'TWILIO_REFUSED', `${sentence.replace(/\.$/, '')}${code}.`);
  }
  ctx.log.warn({ status: e.status, code: e.code, reason: e.message }, 'placing a call failed');
  return new AppError(502, 'TWILIO_UNAVAILABLE', 'Twilio could not be reached to place the call. Please try again.');
}

/** GET /api/conversation/{uuid}/call: the call behind a conversation (null for chats), same access as the detail. */
export async function callInfoOf(ctx: AppContext, actor: Actor | null, uuid: string) {
  const access = await loadConversationToView(ctx, actor, uuid);
  const [row] = await ctx.db.select().from(conversations).where(eq(conversations.id, access.id)).limit(1);
  if (!row || !row.callDirection) return { call: null };
  return {
    call: {
      status: row.callStatus,
      direction: row.callDirection,
      useRealtimeApi: row.useRealtimeApi,
      answeredBy: row.answeredBy,
      duration: row.callDuration,
      recordingUrl: row.recordingUrl,
      recordingDuration: row.recordingDuration,
      ttsCharacters: row.ttsCharacters,
      callCostUsd: row.callCostUsd,
      totalCostUsd: row.costUsd,
      responseLatencyMs: latencySummary(row.responseLatenciesMs ?? []),
    },
  };
}

/** The stored recording of a call conversation, for the streaming route; 404 when there is none. */
export async function callRecordingOf(ctx: AppContext, actor: Actor | null, uuid: string): Promise<{ key: string; size: number }> {
  const access = await loadConversationToView(ctx, actor, uuid);
  const [row] = await ctx.db.select({ recordingUrl: conversations.recordingUrl }).from(conversations).where(eq(conversations.id, access.id));
  const noRecording = () => notFound('This conversation has no recording.', 'RECORDING_NOT_FOUND');
  if (!row?.recordingUrl) throw noRecording();
  const key = recordingStorageKey(access.uuid);
  const size = await recordingStorage(ctx).size(key);
  if (size === null) throw noRecording();
  return { key, size };
}

export type { PlaceCallBody };
