import { sql } from 'drizzle-orm';
import { recordConversationEvent } from '../lib/webhook-outbox.ts';
import type { Executor } from '../db/after-commit.ts';
import { conversations, prospects } from '../db/schema/index.ts';
import { startingVersion } from './conversation-store.ts';

export interface NewCallConversation {
  /** The phone-number account the call goes through; the prospect belongs to it. */
  accountId: number;
  /** The other party's number (or 'anonymous' for a withheld inbound caller). */
  phone: string;
  conversationTypeId: number;
  direction: 'inbound' | 'outbound';
  useRealtimeApi: boolean;
  /** Known at once for an inbound call (Twilio's CallSid); an outbound call gets it when Twilio accepts it. */
  callSid?: string;
  callStatus?: string;
  crmContactId?: string | null;
}

/**
 * The prospect (found or made by phone number on the account) and a new call conversation in phase 0, in
 * the caller's transaction: the one way Make a Call (modules/calls) and an inbound call (voice/inbound.ts)
 * start a call conversation. Returns undefined when a conversation with this CallSid already exists (a
 * redelivered inbound webhook; conversations.call_sid is unique).
 */
export async function createCallConversation(tx: Executor, call: NewCallConversation): Promise<{ id: number; uuid: string } | undefined> {
  const [prospect] = await tx
    .insert(prospects)
    .values({ messagingAccountId: call.accountId, externalId: call.phone })
    .onConflictDoUpdate({ target: [prospects.messagingAccountId, prospects.externalId, prospects.simulated], set: { externalId: sql`excluded.external_id` } })
    .returning({ id: prospects.id });
  const [created] = await tx
    .insert(conversations)
    .values({
      conversationTypeId: call.conversationTypeId,
      ...startingVersion(call.conversationTypeId),
      prospectId: prospect.id,
      // Must equal the prospect's account (composite foreign key, docs/conversations.md).
      messagingAccountId: call.accountId,
      phase: 0,
      callSid: call.callSid,
      callStatus: call.callStatus,
      callDirection: call.direction,
      useRealtimeApi: call.useRealtimeApi,
      crmContactId: call.crmContactId,
    })
    .onConflictDoNothing()
    .returning({ id: conversations.id, uuid: conversations.uuid });
  if (created) {
    await recordConversationEvent(tx, 'conversation.started', created.id);
    await recordConversationEvent(tx, 'call.started', created.id);
  }
  return created;
}
