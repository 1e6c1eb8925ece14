import { and, eq, isNull, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { channelMessages, conversations, prospects } from '../db/schema/index.ts';
import {
  agentSettingsOf,
  emitConversationChanged,
  type Executor,
  insertMessage,
  storeProspectMessage,
} from '../agent/conversation-store.ts';
import { scheduleTurn } from '../agent/turn.job.ts';
import { endSilence, followUpJobKey, recordAgentError } from '../agent/unanswered.ts';
import { endpointsOf, findAccountByKey, type LiveAccount } from './accounts.ts';
import { fetchProfileName } from './profile-name.ts';
import type { InboundEvent } from './inbound-events.ts';

/** What became of one inbound event; for logs and tests. */
export type ReceiveOutcome =
  | 'stored'
  | 'duplicate'
  | 'no-account'
  | 'echo-of-our-send'
  | 'human-reply-stored'
  | 'unknown-recipient'
  | 'send-failure-recorded';

/**
 * Acts on one inbound event (DESIGN.md §7, docs/channels.md). The recipient picks the messaging account; a
 * prospect is (account, sender id); the prospect's latest conversation continues unless it has ended, else a
 * new one starts with the account's conversation type (phase 0), or at -2 when the account has none.
 * Everything is stored in one transaction that first claims the (account, external id) pair, so a
 * redelivered message — also one processed again after a crash — is stored once and answered once.
 */
export async function receiveInboundEvent(ctx: AppContext, event: InboundEvent, options: { simulated: boolean }): Promise<ReceiveOutcome> {
  const account = await findAccountByKey(ctx, event.channel, event.accountKey);
  if (!account) {
    ctx.log.warn({ channel: event.channel, accountKey: event.accountKey }, 'inbound event for no known messaging account; skipped');
    return 'no-account';
  }
  switch (event.kind) {
    case 'message':
      return receiveMessage(ctx, account, event, options.simulated);
    case 'echo':
      return receiveEcho(ctx, account, event);
    case 'send-failed':
      return recordLateSendFailure(ctx, account, event);
  }
}

async function receiveMessage(
  ctx: AppContext,
  account: LiveAccount,
  event: Extract<InboundEvent, { kind: 'message' }>,
  simulated: boolean,
): Promise<ReceiveOutcome> {
  const result = await ctx.db.transaction(async (tx) => {
    if (!(await claimExternalId(tx, account.id, event.externalId, 'IN'))) return null;
    // The upsert locks the prospect's row: two messages of one new prospect (two processes) make one conversation.
    const [prospect] = await tx
      .insert(prospects)
      .values({ messagingAccountId: account.id, externalId: event.senderId, name: event.senderName, simulated })
      .onConflictDoUpdate({
        // A simulated sender and the real person with the same id are two rows (and two conversations).
        target: [prospects.messagingAccountId, prospects.externalId, prospects.simulated],
        set: { name: sql`coalesce(excluded.name, ${prospects.name})` },
      })
      .returning({ id: prospects.id, name: prospects.name, isNew: sql<boolean>`(xmax = 0)` });
    const conversationId = await openConversationOf(tx, account, prospect.id);
    const stored = await storeProspectMessage(tx, {
      conversationId,
      message: event.text,
      externalId: event.externalId,
      dateSent: event.sentAt,
      followUpJobKey: followUpJobKey(conversationId),
    });
    if (stored?.stored) {
      await tx
        .update(channelMessages)
        .set({ conversationId, messageId: stored.stored.id })
        .where(and(eq(channelMessages.messagingAccountId, account.id), eq(channelMessages.externalId, event.externalId)));
      // The turn that answers it commits with the message: were the process killed right after the commit,
      // a redelivery or a rerun of this job would find the id claimed and stop, leaving it unanswered.
      if (stored.waiting) await scheduleTurn(ctx, conversationId, agentSettingsOf(ctx, stored.typeConfig).debounceSeconds, tx);
    }
    return stored ? { ...stored, prospect } : null;
  });
  if (!result?.stored) return 'duplicate';
  const conversationId = result.conversation.id;
  emitConversationChanged(ctx, result.conversation);
  if (result.unansweredChanged) ctx.events.emit('unanswered.changed', { conversationId });
  // Again after the commit, as a web chat does: a turn running meanwhile may have looked for -3 before this
  // commit (docs/agent.md, Concurrency 4), and the runner is woken. A second enqueue of a waiting turn only
  // moves it; one that already ran finds nothing left to answer.
  if (result.waiting) await scheduleTurn(ctx, conversationId, agentSettingsOf(ctx, result.typeConfig).debounceSeconds);
  // After the turn is scheduled: the lookup is a network call the reply must not wait for.
  if (result.prospect.isNew && !result.prospect.name && !simulated) await nameNewProspect(ctx, account, result.prospect.id, event.senderId);
  return 'stored';
}

/** Instagram and Messenger webhooks carry no name: ask the Graph API once, when the prospect is new. */
async function nameNewProspect(ctx: AppContext, account: LiveAccount, prospectId: number, userId: string): Promise<void> {
  const name = await fetchProfileName(endpointsOf(ctx), account, userId);
  if (name) await ctx.db.update(prospects).set({ name }).where(and(eq(prospects.id, prospectId), isNull(prospects.name)));
}

/** Claims (account, external id) for this message; false when it was seen before (a redelivery). */
async function claimExternalId(tx: Executor, accountId: number, externalId: string, direction: 'IN' | 'OUT'): Promise<boolean> {
  const rows = await tx
    .insert(channelMessages)
    .values({ messagingAccountId: accountId, externalId, direction })
    .onConflictDoNothing()
    .returning({ externalId: channelMessages.externalId });
  return rows.length > 0;
}

/**
 * The prospect's conversation that continues, locked for the rest of the transaction: the latest one unless
 * it has ended (phase N of its type), else a new one. A conversation at 9999 (the agent chose not to engage)
 * or waiting on a person (-2, -1) continues: the prospect is still talking to the same business.
 */
async function openConversationOf(tx: Executor, account: LiveAccount, prospectId: number): Promise<number> {
  const result = await tx.execute(sql`
    select c.id, c.phase, c.conversation_type_id,
      (select count(*) from conversation_phases p where p.conversation_type_id = c.conversation_type_id)::int as phase_count
    from ${conversations} c where c.prospect_id = ${prospectId}
    order by c.id desc limit 1 for update of c`);
  const latest = (result as unknown as { rows: { id: number; phase: number; conversation_type_id: number | null; phase_count: number }[] }).rows[0];
  const ended = latest && latest.conversation_type_id !== null && latest.phase_count > 0 && latest.phase === latest.phase_count;
  if (latest && !ended) return latest.id;
  const [created] = await tx
    .insert(conversations)
    .values({
      prospectId,
      messagingAccountId: account.id,
      conversationTypeId: account.conversationTypeId,
      // No playbook on the account: a person must answer (spec §3 phase -2).
      phase: account.conversationTypeId === null ? -2 : 0,
    })
    .returning({ id: conversations.id });
  return created.id;
}

/**
 * Meta echoes every message the business's account sends. Ours are known by their message id (recorded at
 * send time) or, when the echo outruns that record, by our app id. Any other echo is a person answering from
 * Meta's own inbox: it is stored as a human AGENT message and the AI pauses (DESIGN.md §6).
 */
async function receiveEcho(ctx: AppContext, account: LiveAccount, event: Extract<InboundEvent, { kind: 'echo' }>): Promise<ReceiveOutcome> {
  const ourApps = [ctx.config.META_APP_ID, ctx.config.INSTAGRAM_APP_ID].filter(Boolean);
  const outcome = await ctx.db.transaction(async (tx) => {
    if (!(await claimExternalId(tx, account.id, event.externalId, 'OUT'))) return { kind: 'echo-of-our-send' as const };
    if (event.appId && ourApps.includes(event.appId)) return { kind: 'echo-of-our-send' as const };
    const [prospect] = await tx
      .select({ id: prospects.id })
      .from(prospects)
      // Echoes are signed Meta events: always about the real prospect, never a simulated one.
      .where(and(eq(prospects.messagingAccountId, account.id), eq(prospects.externalId, event.recipientId), eq(prospects.simulated, false)))
      .limit(1);
    if (!prospect) return { kind: 'unknown-recipient' as const };
    const conversationId = await openConversationOf(tx, account, prospect.id);
    const stored = await insertMessage(tx, {
      conversationId,
      role: 'AGENT',
      message: event.text,
      dateSent: event.sentAt,
      externalId: event.externalId,
      writtenByHuman: true,
    });
    const [conversation] = await tx
      .update(conversations)
      .set({ aiPaused: true, updatedAt: new Date() })
      .where(eq(conversations.id, conversationId))
      .returning({ id: conversations.id, uuid: conversations.uuid });
    if (stored) {
      await tx
        .update(channelMessages)
        .set({ conversationId, messageId: stored.id })
        .where(and(eq(channelMessages.messagingAccountId, account.id), eq(channelMessages.externalId, event.externalId)));
    }
    return { kind: 'human-reply-stored' as const, conversation };
  });
  if (outcome.kind !== 'human-reply-stored') return outcome.kind;
  // The person took over: no automatic nudge on top of their message, and no pending follow-up in the list.
  await endSilence(ctx, outcome.conversation.id);
  emitConversationChanged(ctx, outcome.conversation);
  return 'human-reply-stored';
}

/** WhatsApp accepted a send and later reported it failed: the error shows in the unanswered list (spec §2.9). */
async function recordLateSendFailure(
  ctx: AppContext,
  account: LiveAccount,
  event: Extract<InboundEvent, { kind: 'send-failed' }>,
): Promise<ReceiveOutcome> {
  const [sent] = await ctx.db
    .select({ conversationId: channelMessages.conversationId })
    .from(channelMessages)
    .where(and(eq(channelMessages.messagingAccountId, account.id), eq(channelMessages.externalId, event.externalId)))
    .limit(1);
  if (!sent?.conversationId) return 'unknown-recipient';
  await recordAgentError(ctx, sent.conversationId, {
    message: event.message,
    type: 'whatsapp',
    code: event.code,
    status: null,
    method: null,
    url: null,
    response: null,
    details: event.details,
  });
  return 'send-failure-recorded';
}
