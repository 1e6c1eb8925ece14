import { count, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { afterCommit } from '../db/after-commit.ts';
import { campaignContacts, campaigns, conversationPhases, conversations } from '../db/schema/index.ts';
import { reportConversationOutcome } from '../conversations/conversation-outcome.ts';
import { emitConversationChanged, type Executor, insertMessage } from '../conversations/conversation-store.ts';
import { isWorkingPhase } from '../conversations/phases.ts';
import { recordConversationEvent } from '../lib/webhook-outbox.ts';
import { twilioClient } from '../channels/senders/twilio-client.ts';
import { accountSidOf, type CallContext } from './call-context.ts';
import { bookCallCost, callPrices, costOfCallMinutes } from './call-costs.ts';
import { utter, voiceSettingsOf } from './speech.ts';
import { hangupTwiml } from './twiml.ts';

/**
 * The call status kept on the conversation (docs/voice.md). Twilio's callbacks can arrive out of order, so a
 * status only ever moves forward: queued → initiated → ringing → in-progress → an end (completed, busy,
 * no-answer, failed, canceled, or voicemail when a machine answered).
 */
const RANK: Record<string, number> = {
  queued: 0,
  initiated: 1,
  ringing: 2,
  'in-progress': 3,
  completed: 4,
  busy: 4,
  'no-answer': 4,
  failed: 4,
  canceled: 4,
  voicemail: 4,
};
export const FINAL_CALL_STATUSES = ['completed', 'busy', 'no-answer', 'failed', 'canceled', 'voicemail'];

const rankSql = sql`(case ${conversations.callStatus} ${sql.join(
  Object.entries(RANK).map(([status, rank]) => sql`when ${status} then ${rank}::int`),
  sql` `,
)} else -1 end)`;

/**
 * Moves the call status forward (never back); answers whether it changed. The screens hear of it once
 * the caller's transaction (`executor`) commits.
 */
export async function advanceCallStatus(ctx: AppContext, call: CallContext, status: string, executor?: Executor): Promise<boolean> {
  const rank = RANK[status];
  if (rank === undefined) return false;
  const rows = await (executor ?? ctx.db)
    .update(conversations)
    .set({ callStatus: status, updatedAt: new Date() })
    .where(sql`${conversations.id} = ${call.conversation.id} and (${conversations.callStatus} is null or ${rankSql} < ${rank})`)
    .returning({ id: conversations.id });
  if (rows.length > 0) await afterCommit(executor ?? ctx.db, () => emitConversationChanged(ctx, call.conversation));
  return rows.length > 0;
}

/**
 * A status callback: the status moves forward; the first final one with CallDuration books the call's
 * minutes (once: a repeated callback finds call_duration set) and queues the call's CRM write-back. The final
 * status, the duration, its cost and the write-back commit in ONE transaction: a process killed in between
 * would leave call_duration set, so Twilio's redelivered callback would find the call done and the CRM note
 * would be lost; now it finds nothing stored and does it all.
 */
export async function applyStatusCallback(ctx: AppContext, call: CallContext, form: Record<string, string>): Promise<void> {
  const status = form.CallStatus ?? '';
  if (form.AnsweredBy) await recordAnsweredBy(ctx, call, form.AnsweredBy);
  if (!FINAL_CALL_STATUSES.includes(status)) {
    await advanceCallStatus(ctx, call, status);
    return;
  }
  const seconds = /^\d{1,7}$/.test(form.CallDuration ?? '') ? Number(form.CallDuration) : 0;
  await ctx.db.transaction(async (tx) => {
    await advanceCallStatus(ctx, call, status, tx);
    const [ended] = await tx
      .update(conversations)
      .set({ callDuration: seconds, updatedAt: new Date() })
      .where(sql`${conversations.id} = ${call.conversation.id} and ${conversations.callDuration} is null`)
      .returning({ phase: conversations.phase, callStatus: conversations.callStatus, crmContactId: conversations.crmContactId });
    if (!ended) return;
    await bookCallCost(ctx, call.conversation.id, costOfCallMinutes(callPrices(ctx.config), seconds), 0, tx);
    await reportCallOutcome(ctx, call, ended, tx);
    await recordConversationEvent(tx, 'call.ended', call.conversation.id);
    await afterCommit(tx, () => emitConversationChanged(ctx, call.conversation));
  });
}

/**
 * The CRM write-back (docs/crm.md) of a call that ended without the agent ending it: never reached (busy, no
 * answer, failed, canceled, a machine) or hung up while the playbook was still in a working phase. Ended,
 * needs-human and errored are reported by the agent (a turn, or a realtime call reaching N) when they
 * happen. `ended` is the row as the callback's transaction left it (locked by its update).
 */
async function reportCallOutcome(
  ctx: AppContext,
  call: CallContext,
  ended: { phase: number; callStatus: string | null; crmContactId: string | null },
  tx: Executor,
): Promise<void> {
  if (!ended.crmContactId) return;
  const conversation = { id: call.conversation.id, crmContactId: ended.crmContactId };
  if (ended.callStatus !== 'completed') {
    await reportConversationOutcome(ctx, conversation, 'notReached', tx);
    return;
  }
  if (ended.phase === -3 || isWorkingPhase(ended.phase, await phaseCountOf(call, tx))) {
    await reportConversationOutcome(ctx, conversation, 'unfinished', tx);
  }
}

async function phaseCountOf(call: CallContext, tx: Executor): Promise<number> {
  if (call.conversation.conversationTypeId === null) return 0;
  const [row] = await tx
    .select({ count: count() })
    .from(conversationPhases)
    .where(eq(conversationPhases.conversationTypeId, call.conversation.conversationTypeId));
  return row?.count ?? 0;
}

async function recordAnsweredBy(ctx: AppContext, call: CallContext, answeredBy: string): Promise<void> {
  await ctx.db
    .update(conversations)
    .set({ answeredBy: answeredBy.slice(0, 40), updatedAt: new Date() })
    .where(sql`${conversations.id} = ${call.conversation.id}`);
}

/**
 * A campaign's call leaves the campaign's voicemailMessage (docs/campaigns.md), before the type's. The contact
 * row names its conversation once the call is placed, seconds before a machine's greeting ends.
 */
async function campaignVoicemailOf(ctx: AppContext, conversationId: number): Promise<string | null> {
  const [row] = await ctx.db
    .select({ message: campaigns.voicemailMessage })
    .from(campaignContacts)
    .innerJoin(campaigns, eq(campaigns.id, campaignContacts.campaignId))
    .where(eq(campaignContacts.conversationId, conversationId))
    .limit(1);
  return row?.message?.trim() || null;
}

export const isMachine = (answeredBy: string) => answeredBy.startsWith('machine_');

/**
 * Answering-machine detection's verdict (async AMD). A person: nothing changes, the agent goes on. A machine:
 * the status becomes voicemail, and the live call is redirected (REST update with TwiML) to leave the
 * playbook's voicemailMessage — stored as the agent's message — and hang up; without one it just hangs up.
 * A fax is hung up on.
 */
export async function applyAnsweringMachine(ctx: AppContext, call: CallContext, form: Record<string, string>): Promise<void> {
  const answeredBy = form.AnsweredBy ?? 'unknown';
  await recordAnsweredBy(ctx, call, answeredBy);
  emitConversationChanged(ctx, call.conversation);
  if (!isMachine(answeredBy) && answeredBy !== 'fax') return;

  await ctx.db
    .update(conversations)
    .set({ callStatus: 'voicemail', updatedAt: new Date() })
    .where(sql`${conversations.id} = ${call.conversation.id} and (${conversations.callStatus} is null or ${rankSql} < 4 or ${conversations.callStatus} = 'completed')`);
  const voicemailMessage = (await campaignVoicemailOf(ctx, call.conversation.id)) ?? voiceSettingsOf(call.type?.config).voicemailMessage;
  let twiml = hangupTwiml([]);
  if (voicemailMessage && isMachine(answeredBy)) {
    await insertMessage(ctx.db, {
      conversationId: call.conversation.id,
      role: 'AGENT',
      message: voicemailMessage,
      externalId: `voicemail:${form.CallSid ?? call.conversation.callSid}`,
    });
    twiml = hangupTwiml([await utter(ctx, call, voicemailMessage)]);
  }
  emitConversationChanged(ctx, call.conversation);
  const sid = form.CallSid || call.conversation.callSid;
  const accountSid = accountSidOf(call.account);
  if (!sid || !accountSid) return;
  try {
    await twilioClient(ctx.config.TWILIO_API_URL!, accountSid, call.account.accessToken).calls(sid).update({ twiml });
  } catch (err) {
    // The machine may have hung up first (21220 "call is not in-progress"): nothing left to say.
    const e = err as { code?: number; status?: number; message?: string };
    ctx.log.warn({ conversationId: call.conversation.id, code: e.code, status: e.status, reason: e.message }, 'could not redirect the call to voicemail');
  }
}
