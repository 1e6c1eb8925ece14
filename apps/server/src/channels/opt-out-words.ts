import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { conversations } from '../db/schema/index.ts';
import { type Executor, insertMessage, loadConversation } from '../conversations/conversation-store.ts';
import { sendAgentMessage } from '../conversations/agent-messages.ts';
import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import {
  addressesOfPerson,
  channelOfAccount,
  clearOptOut,
  contactAddress,
  OPT_OUT_CONFIRMATION,
  optOutIntent,
  type OptOutScope,
  phoneAddress,
  recordOptOut,
  reportOptOutToCrm,
  RESUBSCRIBE_CONFIRMATION,
  WEB_OPT_OUT_CONFIRMATION,
  WEB_RESUBSCRIBE_CONFIRMATION,
} from '../conversations/opt-out.ts';
import type { LiveAccount } from './accounts.ts';

export type OptOutChange = 'stopped' | 'restarted';

/**
 * Acts on STOP/START words in an inbound message, inside the transaction that stores it: records or clears
 * the opt-out of the sender's address, leaves a note on the conversation, and takes the conversation out of
 * the debounce window (-3) so no turn answers it. Returns what changed (null: nothing, or nothing new).
 */
export async function applyOptOutWords(
  ctx: AppContext,
  tx: Executor,
  account: LiveAccount,
  sender: { senderId: string; prospectId: number },
  conversation: { id: number; typeConfig: string | null },
  text: string,
): Promise<OptOutChange | null> {
  const address = contactAddress(account.type, account.id, sender.senderId);
  return applyOptOutIntent(ctx, tx, { address, channel: channelOfAccount(account.type), prospectId: sender.prospectId }, conversation, text);
}

/**
 * The same for any address (a channel's sender, a web chat's `web:<uuid>`): what `applyOptOutWords` does,
 * with the type's opt-out scope deciding whether it covers the address or every channel of the person.
 */
export async function applyOptOutIntent(
  ctx: AppContext,
  tx: Executor,
  who: { address: string; channel: string; prospectId: number | null },
  conversation: { id: number; typeConfig: string | null },
  text: string,
): Promise<OptOutChange | null> {
  const intent = optOutIntent(text);
  if (!intent) return null;
  const { address, channel } = who;
  const everyChannel = optOutScopeOf(ctx, conversation.typeConfig) === 'all' && who.prospectId !== null;
  const changed =
    intent.kind === 'stop'
      ? await recordOptOut(tx, address, channel, intent.how, everyChannel ? await addressesOfPerson(tx, address, who.prospectId) : [])
      : await clearOptOut(tx, address, { userId: null, note: `The prospect wrote ${intent.how} on ${channel}.` });
  if (!changed.length) {
    // A second STOP gets no second confirmation and no reply either; START without an opt-out is a message.
    return intent.kind === 'stop' ? leaveWaiting(tx, conversation.id).then(() => null) : null;
  }
  await leaveWaiting(tx, conversation.id);
  // A web chat has no CRM contact to mark.
  if (channel !== 'web') for (const row of changed) await reportOptOutToCrm(ctx.jobs, tx, { ...row, on: intent.kind === 'stop' });
  const scope = everyChannel ? ' — every channel of this person' : '';
  const note =
    intent.kind === 'stop'
      ? `Opted out (${intent.how} on ${channel}${scope}): no agent reply, follow-up, call or campaign message until the prospect writes START or a person clears it.`
      : `Subscribed again (${intent.how} on ${channel}).`;
  await insertMessage(tx, { conversationId: conversation.id, role: 'SYSTEM', message: note });
  return intent.kind === 'stop' ? 'stopped' : 'restarted';
}

/** `optOutScope` of the conversation's type, else OPT_OUT_SCOPE (docs/compliance.md). */
export function optOutScopeOf(ctx: Pick<AppContext, 'config'>, typeConfig: string | null | undefined): OptOutScope {
  return readConversationTypeConfig(typeConfig ?? null).optOutScope ?? ctx.config.OPT_OUT_SCOPE;
}

/** Back from the debounce window (-3) to the working phase it held, so the conversation does not look like it waits for the agent. */
async function leaveWaiting(tx: Executor, conversationId: number): Promise<void> {
  await tx
    .update(conversations)
    .set({ phase: sql`coalesce(${conversations.resumePhase}, 0)`, resumePhase: null })
    .where(and(eq(conversations.id, conversationId), eq(conversations.phase, -3)));
}

/** The one confirmation, after the commit, through the same outbox as any agent message. */
export async function confirmOptOutChange(ctx: AppContext, conversationId: number, change: OptOutChange): Promise<void> {
  const loaded = await loadConversation(ctx, conversationId);
  if (!loaded) return;
  // The confirmation is the one message that may reach an opted-out address (the delivery job checks every other).
  const web = loaded.prospect === null;
  if (change === 'stopped') await sendAgentMessage(ctx, loaded, web ? WEB_OPT_OUT_CONFIRMATION : OPT_OUT_CONFIRMATION, {}, undefined, 'channel', { optOutNotice: true });
  else await sendAgentMessage(ctx, loaded, web ? WEB_RESUBSCRIBE_CONFIRMATION : RESUBSCRIBE_CONFIRMATION, {});
}

/** Twilio's "Attempt to send to unsubscribed recipient": Advanced Opt-Out has this number as opted out. */
export const TWILIO_OPTED_OUT = '21610';

/** Records an opt-out the carrier reported (the person wrote STOP where we could not see it). */
export async function recordCarrierOptOut(ctx: AppContext, recipient: string): Promise<void> {
  const address = phoneAddress(recipient);
  if (address) await recordOptOut(ctx.db, address, 'sms', 'Twilio Advanced Opt-Out (error 21610)');
}
