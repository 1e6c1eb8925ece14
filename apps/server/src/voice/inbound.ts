import { sql } from 'drizzle-orm';
import twilio from 'twilio';
import type { AppContext } from '../context.ts';
import { conversations } from '../db/schema/index.ts';
import { typeConfigText } from '../conversations/type-config.ts';
import { createCallConversation } from '../conversations/call-conversation.ts';
import { emitConversationChanged } from '../conversations/conversation-store.ts';
import type { LiveAccount } from '../channels/accounts.ts';
import { streamTwiml } from './twiml.ts';
import { callNotices } from './speech.ts';
import { callbackUrls, mediaStreamUrl, streamBinding } from './urls.ts';

export const NOT_TAKING_CALLS = 'Sorry, this number is not taking calls right now. Goodbye.';

/**
 * A call to a TWILIO account's number (docs/voice.md "Inbound calls"): the caller becomes the account's
 * prospect, a new call conversation of the account's conversation type starts, and the call is answered by the
 * realtime agent through `<Connect><Stream>`, recorded from the start (`<Start><Recording>`). Twilio asking twice for the same CallSid (a retry)
 * finds the conversation made the first time (conversations.call_sid is unique).
 */
export async function answerInboundCall(ctx: AppContext, account: LiveAccount, form: Record<string, string>): Promise<string> {
  if (account.conversationTypeId === null) {
    const response = new twilio.twiml.VoiceResponse();
    response.say(NOT_TAKING_CALLS);
    response.hangup();
    return response.toString();
  }
  const caller = form.From || 'anonymous';
  const conversation = await ctx.db.transaction(async (tx) => {
    const created = await createCallConversation(tx, {
      accountId: account.id,
      phone: caller,
      conversationTypeId: account.conversationTypeId!,
      direction: 'inbound',
      useRealtimeApi: true,
      callSid: form.CallSid,
      callStatus: form.CallStatus || 'ringing',
    });
    if (created) return created;
    const [existing] = await tx
      .select({ id: conversations.id, uuid: conversations.uuid })
      .from(conversations)
      .where(sql`${conversations.callSid} = ${form.CallSid}`);
    return existing;
  });
  emitConversationChanged(ctx, conversation);
  const typeConfig = await typeConfigText(ctx.db, account.conversationTypeId);
  return streamTwiml(mediaStreamUrl(ctx.config, streamBinding(ctx.config, conversation.uuid, form.CallSid)), conversation.uuid, {
    recordingCallback: callbackUrls(ctx.config, conversation.uuid).recording,
    notices: callNotices(typeConfig),
  });
}
