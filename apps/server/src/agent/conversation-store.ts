import {
  AGENT_CONFIG_DEFAULTS,
  readConversationTypeConfig,
} from '@sales-agent/shared/schemas/conversation-type-config';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import {
  conversationPhases,
  conversations,
  conversationTypes,
  messages,
  messagingAccounts,
  outbox,
  prospects,
} from '../db/schema/index.ts';
import type { StoredMessage } from './agent.service.ts';
import type { HistoryMessage, Playbook } from './prompts.ts';

/** The database or an open transaction: both run the same queries. */
export type Executor = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

export type ConversationRow = typeof conversations.$inferSelect;

/** A conversation with everything a turn needs: its type, phases (by index) and prospect/account. */
export interface LoadedConversation {
  conversation: ConversationRow;
  type: typeof conversationTypes.$inferSelect | null;
  phases: (typeof conversationPhases.$inferSelect)[];
  prospect: { id: number; externalId: string; messagingAccountId: number; accountType: string } | null;
}

export async function loadConversation(ctx: AppContext, conversationId: number): Promise<LoadedConversation | null> {
  // One round trip for the conversation, its type and its prospect's account; one more for the phases.
  const [row] = await ctx.db
    .select({
      conversation: conversations,
      type: conversationTypes,
      prospect: {
        id: prospects.id,
        externalId: prospects.externalId,
        messagingAccountId: prospects.messagingAccountId,
        accountType: messagingAccounts.type,
      },
    })
    .from(conversations)
    .leftJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
    .leftJoin(prospects, eq(prospects.id, conversations.prospectId))
    .leftJoin(messagingAccounts, eq(messagingAccounts.id, prospects.messagingAccountId))
    .where(eq(conversations.id, conversationId))
    .limit(1);
  if (!row) return null;
  const phases = row.type
    ? await ctx.db
        .select()
        .from(conversationPhases)
        .where(eq(conversationPhases.conversationTypeId, row.type.id))
        .orderBy(asc(conversationPhases.index), asc(conversationPhases.id))
    : [];
  const prospect = row.prospect?.id != null && row.prospect.accountType ? (row.prospect as LoadedConversation['prospect']) : null;
  return { conversation: row.conversation, type: row.type, phases, prospect };
}

/** Just what storing a prospect message needs: the conversation row, its type's config and phase count. */
export async function loadConversationHead(ctx: AppContext, conversationId: number) {
  const [row] = await ctx.db
    .select({
      conversation: conversations,
      typeConfig: conversationTypes.config,
      phaseCount: sql<number>`(select count(*)::int from ${conversationPhases} where ${conversationPhases.conversationTypeId} = ${conversations.conversationTypeId})`,
    })
    .from(conversations)
    .leftJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
    .where(eq(conversations.id, conversationId))
    .limit(1);
  return row ? { ...row, phaseCount: Number(row.phaseCount) } : null;
}

/** The effective agent settings of a type: its config JSON over AGENT_CONFIG_DEFAULTS. */
export function agentSettingsOf(ctx: AppContext, configText: string | null | undefined) {
  const config = readConversationTypeConfig(configText);
  return {
    debounceSeconds: config.replyDebounceSeconds ?? AGENT_CONFIG_DEFAULTS.replyDebounceSeconds,
    followUpDelaysMinutes: config.followUp?.delaysMinutes ?? [...AGENT_CONFIG_DEFAULTS.followUp.delaysMinutes],
    maxFollowUps: config.followUp?.max ?? AGENT_CONFIG_DEFAULTS.followUp.max,
    model: config.model ?? ctx.config.LLM_MODEL,
    temperature: config.temperature ?? AGENT_CONFIG_DEFAULTS.temperature,
  };
}
export type AgentSettings = ReturnType<typeof agentSettingsOf>;

/** Phase positions are the phases sorted by their index (so 0..N-1 even when stored indexes have gaps). */
export function playbookOf(loaded: LoadedConversation, settings: AgentSettings): Playbook {
  const type = loaded.type!;
  return {
    rolePrompt: type.rolePrompt,
    triggerConversationPrompt: type.triggerConversationPrompt,
    checkingPrompt: type.checkingPrompt,
    errorPrompt: type.errorPrompt,
    phases: loaded.phases.map((p) => ({ prompt: p.prompt, transitionPrompt: p.transitionPrompt, followUpPrompt: p.followUpPrompt })),
    model: settings.model,
    temperature: settings.temperature,
  };
}

/** The latest messages in order (oldest first), with ids, for prompts and the "anything new?" checks. */
export async function loadHistory(ctx: AppContext, conversationId: number, limit = 200): Promise<(HistoryMessage & { id: number })[]> {
  const rows = await ctx.db
    .select({ id: messages.id, role: messages.role, message: messages.message })
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(desc(messages.id))
    .limit(limit);
  return rows.reverse();
}

/** Ids of the newest PROSPECT and AGENT messages (0 when none); a prospect id above the agent id is unanswered. */
export async function lastMessageIds(db: Executor, conversationId: number): Promise<{ prospect: number; agent: number }> {
  const result = await db.execute(sql`
    select coalesce(max(id) filter (where role = 'PROSPECT'), 0) as prospect,
           coalesce(max(id) filter (where role = 'AGENT'), 0) as agent
    from messages where conversation_id = ${conversationId}`);
  const row = (result as unknown as { rows: { prospect: string | number; agent: string | number }[] }).rows[0];
  return { prospect: Number(row?.prospect ?? 0), agent: Number(row?.agent ?? 0) };
}

export interface NewMessage {
  conversationId: number;
  role: 'SYSTEM' | 'PROSPECT' | 'AGENT';
  message: string;
  dateSent?: Date;
  externalId?: string;
  writtenByHuman?: boolean;
}

/**
 * Inserts a message and keeps the conversation's messagesCount and lastMessageDate right (the list screen
 * sorts on them). Returns null when a message with the same externalId is already stored (a redelivery).
 */
export async function insertMessage(db: Executor, input: NewMessage): Promise<StoredMessage | null> {
  const dateSent = input.dateSent ?? new Date();
  // One round trip: the insert (a no-op on a duplicate externalId) and the counters, only when inserted.
  const result = await db.execute(sql`
    with inserted as (
      insert into ${messages} (conversation_id, role, message, date_sent, external_id, written_by_human)
      values (${input.conversationId}, ${input.role}, ${input.message}, ${dateSent.toISOString()}::timestamptz,
              ${input.externalId ?? null}, ${input.writtenByHuman ?? false})
      on conflict do nothing
      returning id, conversation_id, role, message, date_sent
    ), counted as (
      update ${conversations} set messages_count = messages_count + 1,
        last_message_date = greatest(last_message_date, ${dateSent.toISOString()}::timestamptz), updated_at = now()
      where id = ${input.conversationId} and exists (select 1 from inserted)
    )
    select id, conversation_id, role, message, date_sent from inserted`);
  const row = (result as unknown as { rows: { id: string | number; conversation_id: number; role: StoredMessage['role']; message: string; date_sent: string | Date }[] }).rows[0];
  if (!row) return null;
  return { id: Number(row.id), conversationId: row.conversation_id, role: row.role, message: row.message, dateSent: new Date(row.date_sent) };
}

/**
 * Queues an AGENT message for the prospect's channel. The senders that drain the outbox (Meta, WhatsApp,
 * Twilio, SMS gateway) come with the channels issue; until then rows stay PENDING.
 */
export async function queueOutbound(db: Executor, loaded: LoadedConversation, message: StoredMessage): Promise<void> {
  if (!loaded.prospect) return;
  await db.insert(outbox).values({
    conversationId: loaded.conversation.id,
    messagingAccountId: loaded.prospect.messagingAccountId,
    messageId: message.id,
    channel: loaded.prospect.accountType,
    payload: { text: message.message, recipientId: loaded.prospect.externalId, messageId: message.id },
  });
}

/** Locks the conversation row for the rest of the transaction and returns its current state. */
export async function lockConversationRow(tx: Executor, conversationId: number): Promise<ConversationRow | undefined> {
  const [row] = await tx.select().from(conversations).where(eq(conversations.id, conversationId)).for('update');
  return row;
}

/** Whether a prospect message newer than `afterId` is stored. */
export async function hasProspectMessageAfter(tx: Executor, conversationId: number, afterId: number): Promise<boolean> {
  const rows = await tx
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.conversationId, conversationId), eq(messages.role, 'PROSPECT'), sql`${messages.id} > ${afterId}`))
    .limit(1);
  return rows.length > 0;
}

export function emitConversationChanged(ctx: AppContext, conversation: { id: number; uuid: string }): void {
  ctx.events.emit('conversation.changed', { conversationId: conversation.id, uuid: conversation.uuid });
}
