import { and, eq, inArray, sql } from 'drizzle-orm';
import type { LeadBody, LeadResult } from '@sales-agent/shared/schemas/integrations';
import { E164_MESSAGE, isE164 } from '@sales-agent/shared/schemas/call';
import type { AppContext } from '../../context.ts';
import { conversations, conversationTypes, messagingAccounts, prospects } from '../../db/schema/index.ts';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.ts';
import { recordConversationEvent } from '../../lib/webhook-outbox.ts';
import { emitConversationChanged, insertMessage, type LoadedConversation, startingVersion } from '../../conversations/conversation-store.ts';
import { assertMayContact, phoneAddress } from '../../conversations/opt-out.ts';
import { assertWhatsAppOptIn, recordConsent } from '../../conversations/consent.ts';
import { contactWaitMessage, quietNow } from '../../conversations/quiet-hours.ts';
import { placeCall } from '../calls/calls.service.ts';

/** What a campaign adds to a lead: the approved WhatsApp template its opening message goes as (docs/campaigns.md). */
export interface LeadOptions {
  whatsappTemplate?: { name: string; language: string; components?: unknown[] } | null;
}

/** Accounts a lead can be written to by phone number. */
const PHONE_ACCOUNTS = ['TWILIO', 'SMS_GATEWAY', 'WHATSAPP'] as const;

const unavailable = (message: string) => new AppError(400, 'LEAD_CHANNEL_UNAVAILABLE', message);

/**
 * An inbound lead (docs/api.md "Starting from outside"): the prospect (by phone, on the account), a conversation
 * of the type, the form's fields as its first note, and the type's opening message queued on the channel — or a
 * call. The opt-out list and quiet hours apply first, as to every outbound contact (docs/compliance.md).
 */
export async function startLead(ctx: AppContext, input: LeadBody, options: LeadOptions = {}): Promise<LeadResult> {
  const phone = phoneAddress(input.phone);
  if (!phone || !isE164(phone)) throw badRequest(E164_MESSAGE, 'INVALID_PHONE');
  const [type] = await ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, input.conversationTypeId)).limit(1);
  if (!type) throw notFound('Conversation type not found', 'CONVERSATION_TYPE_NOT_FOUND');

  if (input.channel === 'call') {
    const { uuid } = await placeCall(ctx, phone, { conversationTypeId: type.id, contactId: null, useRealtimeApi: true });
    await noteLead(ctx, uuid, input);
    return { uuid, channel: 'call' };
  }

  const account = await phoneAccountOf(ctx, type, input.messagingAccountId);
  const opening = type.initialMessage?.trim();
  if (!opening) throw unavailable('This conversation type has no initial message to open the conversation with. Add one to the type first.');
  await assertMayContact(ctx.db, phone, 'Messaging this number');
  const quiet = await quietNow(ctx.config, phone, type.config);
  if (quiet) throw conflict(contactWaitMessage('Messaging this number', quiet), 'QUIET_HOURS');
  if (account.type === 'WHATSAPP') {
    // A lead's opening WhatsApp message starts the conversation: it needs the person's opt-in (docs/compliance.md).
    if (input.whatsappOptIn) await recordConsent(ctx.db, { address: phone, channel: 'whatsapp', granted: true, source: 'api', note: input.optInNote || null });
    await assertWhatsAppOptIn(ctx.db, phone, 'Messaging this number on WhatsApp');
  }

  // WhatsApp names a number without the plus (as its webhooks do), so replies find the same prospect.
  const externalId = account.type === 'WHATSAPP' ? phone.slice(1) : phone;
  const created = await ctx.db.transaction(async (tx) => {
    const [prospect] = await tx
      .insert(prospects)
      .values({ messagingAccountId: account.id, externalId, name: input.name || null })
      .onConflictDoUpdate({
        target: [prospects.messagingAccountId, prospects.externalId, prospects.simulated],
        set: { name: sql`coalesce(excluded.name, ${prospects.name})` },
      })
      .returning();
    const [conversation] = await tx
      .insert(conversations)
      // Pinned like every other start: the newest published version, or an A/B test's arm (docs/playbook-versions.md).
      .values({ conversationTypeId: type.id, ...startingVersion(type.id), prospectId: prospect.id, messagingAccountId: account.id, phase: 0 })
      .returning();
    await recordConversationEvent(tx, 'conversation.started', conversation.id);
    const note = leadNote(input);
    if (note) await insertMessage(tx, { conversationId: conversation.id, role: 'SYSTEM', message: note });
    const loaded: LoadedConversation = {
      conversation,
      type,
      phases: [],
      prospect: { id: prospect.id, externalId, messagingAccountId: account.id, accountType: account.type, simulated: false },
    };
    const stored = await insertMessage(tx, { conversationId: conversation.id, role: 'AGENT', message: opening }, {
      outboxFor: loaded,
      jobs: ctx.jobs,
      template: account.type === 'WHATSAPP' ? options.whatsappTemplate : null,
    });
    return { conversation, messageId: stored?.id ?? null };
  });
  emitConversationChanged(ctx, created.conversation);
  if (created.messageId !== null) ctx.events.emit('outbox.queued', { conversationId: created.conversation.id, messageId: created.messageId });
  return { uuid: created.conversation.uuid, channel: 'message' };
}

/** The account to write from: the one asked for, else the type's, else one that answers for the type. */
async function phoneAccountOf(ctx: AppContext, type: typeof conversationTypes.$inferSelect, requested: number | undefined) {
  const kinds = [...PHONE_ACCOUNTS];
  const where = requested
    ? eq(messagingAccounts.id, requested)
    : type.messagingAccountId !== null
      ? eq(messagingAccounts.id, type.messagingAccountId)
      : and(eq(messagingAccounts.conversationTypeId, type.id), inArray(messagingAccounts.type, kinds));
  const [account] = await ctx.db.select().from(messagingAccounts).where(where).orderBy(messagingAccounts.id).limit(1);
  if (!account || !(kinds as string[]).includes(account.type)) {
    throw unavailable('This conversation type has no SMS or WhatsApp account to write from. Choose one on the type, or pass messagingAccountId.');
  }
  return account;
}

function leadNote(input: LeadBody): string | null {
  const entries = Object.entries(input.fields ?? {}).filter(([, v]) => v !== null && v !== '');
  if (!input.name && entries.length === 0) return null;
  const lines = [input.name ? `name: ${input.name}` : null, ...entries.map(([k, v]) => `${k}: ${String(v)}`)].filter(Boolean);
  return `Lead details from the form:\n${lines.join('\n')}`;
}

/** A call's lead: the name on its prospect and the fields as a note. */
async function noteLead(ctx: AppContext, uuid: string, input: LeadBody): Promise<void> {
  const [conversation] = await ctx.db.select().from(conversations).where(eq(conversations.uuid, uuid)).limit(1);
  if (!conversation) return;
  if (input.name && conversation.prospectId) {
    await ctx.db.update(prospects).set({ name: input.name }).where(eq(prospects.id, conversation.prospectId));
  }
  const note = leadNote(input);
  if (note) await insertMessage(ctx.db, { conversationId: conversation.id, role: 'SYSTEM', message: note });
}
