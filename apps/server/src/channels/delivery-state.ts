import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { channelMessages, conversations, prospects } from '../db/schema/index.ts';
import { emitConversationChanged } from '../conversations/conversation-store.ts';
import { recordAgentError } from '../conversations/unanswered.ts';
import type { LiveAccount } from './accounts.ts';
import type { InboundEvent } from './inbound-events.ts';

/**
 * Delivery states of our sends (issue 24, docs/channels.md "Delivery states"): what the channel last reported
 * about each part we sent, in `channel_messages`. A state only moves forward — sent < delivered < read <
 * failed — so reports that arrive late, twice or out of order never take a message back (a "delivered" after
 * "read" changes nothing), and the open views of each conversation that changed refresh.
 */

type DeliveryState = 'sent' | 'delivered' | 'read' | 'failed';
const RANK: Record<DeliveryState, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };
const CURRENT_RANK = sql`case ${channelMessages.deliveryState} when 'sent' then 1 when 'delivered' then 2 when 'read' then 3 when 'failed' then 4 else 0 end`;

/** Moves our sends matching `which` (of this account) to `state` where that is a step forward. */
async function advance(ctx: AppContext, account: LiveAccount, which: SQL, state: DeliveryState, error: string | null): Promise<number[]> {
  const rows = await ctx.db
    .update(channelMessages)
    .set({ deliveryState: state, deliveryError: error })
    .where(and(eq(channelMessages.messagingAccountId, account.id), eq(channelMessages.direction, 'OUT'), sql`${CURRENT_RANK} < ${RANK[state]}`, which))
    .returning({ conversationId: channelMessages.conversationId });
  const changed = [...new Set(rows.map((row) => row.conversationId).filter((id): id is number => id !== null))];
  if (changed.length > 0) {
    const views = await ctx.db.select({ id: conversations.id, uuid: conversations.uuid }).from(conversations).where(inArray(conversations.id, changed));
    for (const conversation of views) emitConversationChanged(ctx, conversation);
  }
  return changed;
}

/** One send's new state (WhatsApp statuses, Twilio status callbacks, the SMS gateway's reports). */
export async function recordDeliveryState(ctx: AppContext, account: LiveAccount, externalId: string, state: Exclude<DeliveryState, 'failed'>) {
  await advance(ctx, account, eq(channelMessages.externalId, externalId), state, null);
  return 'delivery-recorded' as const;
}

/**
 * Meta's watermarks (Messenger `delivery`/`read`, Instagram `read`): every send to this prospect made up to the
 * watermark, the messages named, and every send made before those. A send's `created_at` is the moment we
 * asked Meta to send it (deliver.job.ts), so it is never after Meta's own timestamp of that message.
 */
export async function recordDeliveryWatermark(ctx: AppContext, account: LiveAccount, event: Extract<InboundEvent, { kind: 'delivery-watermark' }>) {
  const named = event.mids.length > 0 ? inArray(channelMessages.externalId, event.mids) : null;
  const namedUntil = named
    ? sql`(select max(n.created_at) from channel_messages n where n.messaging_account_id = ${account.id} and n.external_id in (${sql.join(event.mids.map((mid) => sql`${mid}`), sql`, `)}))`
    : null;
  const limits = [event.watermark ? sql`${event.watermark.toISOString()}::timestamptz` : null, namedUntil].filter((v): v is SQL => v !== null);
  const until = limits.length > 1 ? sql`greatest(${sql.join(limits, sql`, `)})` : limits[0];
  const toProspect = inArray(
    channelMessages.conversationId,
    ctx.db
      .select({ id: conversations.id })
      .from(conversations)
      .innerJoin(prospects, eq(prospects.id, conversations.prospectId))
      .where(and(eq(prospects.messagingAccountId, account.id), eq(prospects.externalId, event.prospectId))),
  );
  const covered = [named, until ? sql`${channelMessages.createdAt} <= ${until}` : null].filter((v): v is SQL => v !== null);
  await advance(ctx, account, and(toProspect, or(...covered))!, event.state, null);
  return 'delivery-recorded' as const;
}

/**
 * The channel accepted a send and later reported it failed: the message shows failed with the reason, and the
 * error goes to the conversation's unanswered list (spec §2.9) once, not again for a repeated report.
 */
export async function recordLateSendFailure(ctx: AppContext, account: LiveAccount, event: Extract<InboundEvent, { kind: 'send-failed' }>) {
  const [sent] = await ctx.db
    .select({ conversationId: channelMessages.conversationId })
    .from(channelMessages)
    .where(and(eq(channelMessages.messagingAccountId, account.id), eq(channelMessages.externalId, event.externalId)))
    .limit(1);
  if (!sent?.conversationId) return 'unknown-recipient' as const;
  const changed = await advance(ctx, account, eq(channelMessages.externalId, event.externalId), 'failed', event.message);
  if (changed.length === 0) return 'duplicate' as const;
  await recordAgentError(ctx, sent.conversationId, {
    message: event.message,
    type: event.channel === 'SMS_GATEWAY' ? 'sms-gateway' : event.channel.toLowerCase(),
    code: event.code,
    status: null,
    method: null,
    url: null,
    response: null,
    details: event.details,
  });
  return 'send-failure-recorded' as const;
}
