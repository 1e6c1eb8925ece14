import { and, eq, isNull, or, sql } from 'drizzle-orm';
import { recordConversationEvent } from '../lib/webhook-outbox.ts';
import type { AppContext } from '../context.ts';
import { agentError } from '../conversations/agent-errors.ts';
import { channelMessages, conversations, conversationTypeVersions, messages, prospects } from '../db/schema/index.ts';
import { captureContactDetailsAfterMessage } from '../modules/contacts/contact-capture.ts';
import { agentSettingsOf, startingVersion, emitConversationChanged, type Executor, insertMessage, storeProspectMessage } from '../conversations/conversation-store.ts';
import { demoAgentMustNotAnswer, NO_LLM_REASON } from '../agent/llm/demo-policy.ts';
import { scheduleTurn } from '../agent/turn.job.ts';
import { endSilence, followUpJobKey, recordAgentError } from '../conversations/unanswered.ts';
import { openHandoff } from '../conversations/analytics-events.ts';
import { endpointsOf, findAccountByKey, type LiveAccount } from './accounts.ts';
import { fetchProfileName } from './profile-name.ts';
import type { InboundEvent } from './inbound-events.ts';
import { recordDeliveryState, recordDeliveryWatermark, recordLateSendFailure } from './delivery-state.ts';
import { type ReceivedMedia, receiveInboundMedia } from './inbound-media.ts';
import { applyOptOutWords, confirmOptOutChange, type OptOutChange } from './opt-out-words.ts';
import { recordConsent, recordOptInFromConversation } from '../conversations/consent.ts';
import { contactAddress } from '../conversations/opt-out.ts';

/** What became of one inbound event; for logs and tests. */
export type ReceiveOutcome =
  | 'stored'
  | 'duplicate'
  | 'no-account'
  | 'echo-of-our-send'
  | 'human-reply-stored'
  | 'unknown-recipient'
  | 'send-failure-recorded'
  | 'delivery-recorded'
  | 'unsupported-noted'
  | 'edited'
  | 'deleted'
  | 'unknown-message';

type MessageEvent = Extract<InboundEvent, { kind: 'message' }>;

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
    case 'delivery-status':
      return recordDeliveryState(ctx, account, event.externalId, event.state);
    case 'delivery-watermark':
      return recordDeliveryWatermark(ctx, account, event);
    case 'unsupported':
      return receiveUnsupported(ctx, account, event, options.simulated);
    case 'edit':
      return receiveEdit(ctx, account, event, options.simulated);
    case 'delete':
      return receiveDelete(ctx, account, event);
  }
}

async function receiveMessage(ctx: AppContext, account: LiveAccount, event: MessageEvent, simulated: boolean): Promise<ReceiveOutcome> {
  // Media is fetched (and audio transcribed) before the transaction: network calls hold no locks. A
  // redelivery of a message already stored is recognised first, so nothing is downloaded twice.
  let media: ReceivedMedia | null = null;
  if (event.media?.length) {
    if (await isClaimed(ctx, account.id, event.externalId)) return 'duplicate';
    media = await receiveInboundMedia(ctx, account, event.media[0]);
  }
  const text = media?.transcript ? withTranscript(event.text, media.transcript) : event.text;
  // No demo text to real people (docs/agent.md): without an LLM a real prospect on a live channel goes to a person.
  const demoOnly = demoAgentMustNotAnswer(ctx, { simulated });
  const result = await ctx.db.transaction(async (tx) => {
    if (!(await claimExternalId(tx, account.id, event.externalId, 'IN'))) return null;
    const prospect = await upsertProspect(tx, account, event, simulated);
    const conversationId = await openConversationOf(tx, account, prospect.id);
    // Messenger handover: another app holds the thread, so ours must not answer (stored, AI paused). Pausing
    // the AI this way is a take-over (analytics "Hand-offs"), counted once, as the Take over button is.
    if (event.standby) {
      const paused = await tx
        .update(conversations)
        .set({ aiPaused: true })
        .where(and(eq(conversations.id, conversationId), eq(conversations.aiPaused, false)))
        .returning({ id: conversations.id });
      if (paused.length > 0) await openHandoff(tx, conversationId, 'TAKEN_OVER', event.sentAt);
    }
    const stored = await storeProspectMessage(tx, {
      conversationId,
      message: text,
      externalId: event.externalId,
      dateSent: event.sentAt,
      followUpJobKey: followUpJobKey(conversationId),
    });
    let waiting = stored?.waiting ?? false;
    let handedOff = false;
    let optOut: OptOutChange | null = null;
    if (stored?.stored) {
      await linkChannelMessage(tx, account.id, event.externalId, conversationId, stored.stored.id);
      optOut = await applyOptOutWords(ctx, tx, account, { senderId: event.senderId, prospectId: prospect.id }, { id: conversationId, typeConfig: stored.typeConfig }, text);
      if (optOut) waiting = false;
      if (account.type === 'WHATSAPP') await recordWhatsAppConsent(tx, account, event.senderId, optOut);
      if (media?.key) await tx.update(messages).set({ mediaKey: media.key, mediaType: media.mimeType }).where(eq(messages.id, stored.stored.id));
      const reason = media?.problem ?? (waiting && demoOnly ? NO_LLM_REASON : null);
      if (reason) {
        await handToPerson(ctx, tx, conversationId, reason, media?.problem ? 'voice-note' : 'no-llm', waiting);
        handedOff = waiting;
        waiting = false;
      }
      // The turn that answers it commits with the message: were the process killed right after the commit,
      // a redelivery or a rerun of this job would find the id claimed and stop, leaving it unanswered.
      if (waiting) await scheduleTurn(ctx, conversationId, agentSettingsOf(ctx, stored.typeConfig).debounceSeconds, tx);
    }
    return stored ? { ...stored, waiting, handedOff, noted: Boolean(media?.problem), prospect, optOut } : null;
  });
  if (!result?.stored) return 'duplicate';
  const conversationId = result.conversation.id;
  emitConversationChanged(ctx, result.conversation);
  // A hand-over or a note recorded its error, whose event went out on the commit (recordAgentError).
  if (result.unansweredChanged) ctx.events.emit('unanswered.changed', { conversationId });
  // Again after the commit, as a web chat does: a turn running meanwhile may have looked for -3 before this
  // commit (docs/agent.md, Concurrency 4), and the runner is woken. A second enqueue of a waiting turn only
  // moves it; one that already ran finds nothing left to answer.
  if (result.waiting) await scheduleTurn(ctx, conversationId, agentSettingsOf(ctx, result.typeConfig).debounceSeconds);
  if (result.optOut) await confirmOptOutChange(ctx, conversationId, result.optOut);
  // An email or phone number the prospect wrote goes onto their contact (issue 24).
  if (text) await captureContactDetailsAfterMessage(ctx, conversationId, text);
  // After the turn is scheduled: the lookup is a network call the reply must not wait for.
  if (result.prospect.isNew && !result.prospect.name && !simulated) await nameNewProspect(ctx, account, result.prospect.id, event.senderId);
  return 'stored';
}

/**
 * WhatsApp opt-in (docs/compliance.md): the prospect writing to us is their opt-in unless one was recorded
 * before; STOP withdraws it and START gives it again.
 */
async function recordWhatsAppConsent(tx: Executor, account: LiveAccount, senderId: string, optOut: OptOutChange | null): Promise<void> {
  const address = contactAddress(account.type, account.id, senderId);
  if (optOut === 'stopped') await recordConsent(tx, { address, channel: 'whatsapp', granted: false, source: 'opt-out' });
  else if (optOut === 'restarted') await recordConsent(tx, { address, channel: 'whatsapp', granted: true, source: 'keyword START' });
  else await recordOptInFromConversation(tx, address);
}

/** "[voice note] <transcript>": what the agent reads; the audio itself stays playable in the conversation. */
function withTranscript(text: string, transcript: string): string {
  const label = /\[(voice note|audio)\]/.exec(text);
  return label ? text.replace(label[0], `${label[0]} ${transcript}`) : `${text}\n${transcript}`.trim();
}

async function isClaimed(ctx: AppContext, accountId: number, externalId: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: channelMessages.externalId })
    .from(channelMessages)
    .where(and(eq(channelMessages.messagingAccountId, accountId), eq(channelMessages.externalId, externalId)))
    .limit(1);
  return Boolean(row);
}

/**
 * A person must answer: a note on the conversation says why, the reason shows in the unanswered monitor
 * (spec §2.9), and when the agent was about to answer the conversation goes to -2 (needs a person).
 */
async function handToPerson(ctx: AppContext, tx: Executor, conversationId: number, reason: string, code: string, toNeedsPerson: boolean) {
  if (toNeedsPerson) {
    await tx.update(conversations).set({ phase: -2, resumePhase: null, updatedAt: new Date() }).where(eq(conversations.id, conversationId));
  }
  await insertMessage(tx, { conversationId, role: 'SYSTEM', message: reason });
  await recordAgentError(ctx, conversationId, agentError('channel', code, reason), tx);
}

/**
 * The prospect (account, sender id), created when new. A WhatsApp user may come with a business-scoped user
 * id and no phone, or later with both: any of the ids finds the same prospect, and the user id is kept on it.
 */
async function upsertProspect(
  tx: Executor,
  account: LiveAccount,
  event: Pick<MessageEvent, 'senderId' | 'senderName' | 'senderUserId'>,
  simulated: boolean,
): Promise<{ id: number; name: string | null; isNew: boolean }> {
  const userId = event.senderUserId ?? null;
  if (userId) {
    const [known] = await tx
      .select({ id: prospects.id, name: prospects.name })
      .from(prospects)
      .where(
        and(
          eq(prospects.messagingAccountId, account.id),
          eq(prospects.simulated, simulated),
          or(eq(prospects.externalId, event.senderId), eq(prospects.externalId, userId), eq(prospects.scopedUserId, userId)),
        ),
      )
      .orderBy(prospects.id)
      .limit(1)
      .for('update');
    if (known) {
      await tx
        .update(prospects)
        .set({ name: sql`coalesce(${event.senderName}::text, ${prospects.name})` })
        .where(eq(prospects.id, known.id));
      await tx.execute(sql`update ${prospects} set scoped_user_id = ${userId}
        where id = ${known.id} and scoped_user_id is null
          and not exists (select 1 from ${prospects} o where o.messaging_account_id = ${account.id} and o.scoped_user_id = ${userId} and o.simulated = ${simulated})`);
      return { id: known.id, name: event.senderName ?? known.name, isNew: false };
    }
  }
  // The upsert locks the prospect's row: two messages of one new prospect (two processes) make one conversation.
  const [prospect] = await tx
    .insert(prospects)
    .values({ messagingAccountId: account.id, externalId: event.senderId, scopedUserId: userId, name: event.senderName, simulated })
    .onConflictDoUpdate({
      // A simulated sender and the real person with the same id are two rows (and two conversations).
      target: [prospects.messagingAccountId, prospects.externalId, prospects.simulated],
      set: { name: sql`coalesce(excluded.name, ${prospects.name})` },
    })
    .returning({ id: prospects.id, name: prospects.name, isNew: sql<boolean>`(xmax = 0)` });
  return prospect;
}

/**
 * Something the prospect sent that no channel text can show (WhatsApp `unsupported`, an unknown type,
 * Instagram `is_unsupported`): a visible note on their conversation, the reason in the unanswered monitor so
 * a person can open the app and look, and a structured warning line. Never answered by the agent.
 */
async function receiveUnsupported(
  ctx: AppContext,
  account: LiveAccount,
  event: Extract<InboundEvent, { kind: 'unsupported' }>,
  simulated: boolean,
): Promise<ReceiveOutcome> {
  const note = `The prospect sent something this channel cannot show (${event.reason}). Open the conversation in ${
    account.type === 'WHATSAPP' ? 'WhatsApp' : account.type === 'INSTAGRAM' ? 'Instagram' : 'Messenger'
  } to see it.`;
  const conversation = await ctx.db.transaction(async (tx) => {
    if (!(await claimExternalId(tx, account.id, event.externalId, 'IN'))) return null;
    const prospect = await upsertProspect(tx, account, event, simulated);
    const conversationId = await openConversationOf(tx, account, prospect.id);
    const stored = await insertMessage(tx, { conversationId, role: 'SYSTEM', message: note, externalId: event.externalId, dateSent: event.sentAt });
    if (stored) {
      await linkChannelMessage(tx, account.id, event.externalId, conversationId, stored.id);
    }
    await recordAgentError(ctx, conversationId, agentError('channel', 'UNSUPPORTED_MESSAGE', note, event.reason), tx);
    const [row] = await tx.select({ id: conversations.id, uuid: conversations.uuid }).from(conversations).where(eq(conversations.id, conversationId));
    return row;
  });
  if (!conversation) return 'duplicate';
  ctx.log.warn(
    { channel: event.channel, accountId: account.id, conversationId: conversation.id, externalId: event.externalId, reason: event.reason },
    'inbound message the channel cannot show; noted on the conversation',
  );
  emitConversationChanged(ctx, conversation);
  return 'unsupported-noted';
}

/** The stored message a provider id refers to, with its conversation. */
/** Points the channel's delivery record (claimed before the message existed) at the stored message. */
async function linkChannelMessage(tx: Executor, accountId: number, externalId: string, conversationId: number, messageId: number): Promise<void> {
  await tx
    .update(channelMessages)
    .set({ conversationId, messageId })
    .where(and(eq(channelMessages.messagingAccountId, accountId), eq(channelMessages.externalId, externalId)));
}

async function storedMessageOf(tx: Executor, accountId: number, externalId: string) {
  const [row] = await tx
    .select({ messageId: channelMessages.messageId, conversationId: channelMessages.conversationId })
    .from(channelMessages)
    .where(and(eq(channelMessages.messagingAccountId, accountId), eq(channelMessages.externalId, externalId)))
    .limit(1);
  return row?.messageId && row.conversationId ? { messageId: row.messageId, conversationId: row.conversationId } : null;
}

/**
 * Instagram/Messenger `message_edit`: the stored message takes the new text, the one before is kept
 * (previousMessage, shown as edited). A turn not yet run reads the new text; one already answered is not
 * re-run. An edit of a message we never stored is stored as a new message, so it is not lost.
 */
async function receiveEdit(
  ctx: AppContext,
  account: LiveAccount,
  event: Extract<InboundEvent, { kind: 'edit' }>,
  simulated: boolean,
  retried = false,
): Promise<ReceiveOutcome> {
  const conversation = await ctx.db.transaction(async (tx) => {
    const target = await storedMessageOf(tx, account.id, event.externalId);
    if (!target) return null;
    await lockConversation(tx, target.conversationId);
    await tx.execute(sql`update ${messages} set previous_message = message, message = ${event.text}, edited_at = ${event.sentAt.toISOString()}::timestamptz
      where id = ${target.messageId} and message <> ${event.text}`);
    const [row] = await tx.select({ id: conversations.id, uuid: conversations.uuid }).from(conversations).where(eq(conversations.id, target.conversationId));
    return row ?? null;
  });
  if (!conversation) {
    const outcome = await receiveMessage(ctx, account, { kind: 'message', channel: event.channel, accountKey: event.accountKey, senderId: event.senderId, senderName: null, externalId: event.externalId, text: event.text, sentAt: event.sentAt }, simulated);
    // The original was stored meanwhile (another instance processed it at the same moment): edit it now.
    if (outcome === 'duplicate' && !retried) return receiveEdit(ctx, account, event, simulated, true);
    return outcome;
  }
  emitConversationChanged(ctx, conversation);
  return 'edited';
}

/** Instagram `is_deleted`: the message stays, marked deleted (shown so, and read so by the agent). */
async function receiveDelete(ctx: AppContext, account: LiveAccount, event: Extract<InboundEvent, { kind: 'delete' }>): Promise<ReceiveOutcome> {
  const conversation = await ctx.db.transaction(async (tx) => {
    const target = await storedMessageOf(tx, account.id, event.externalId);
    if (!target) return null;
    await tx.update(messages).set({ deletedAt: sql`coalesce(${messages.deletedAt}, now())` }).where(eq(messages.id, target.messageId));
    const [row] = await tx.select({ id: conversations.id, uuid: conversations.uuid }).from(conversations).where(eq(conversations.id, target.conversationId));
    return row ?? null;
  });
  if (!conversation) return 'unknown-message';
  emitConversationChanged(ctx, conversation);
  return 'deleted';
}

async function lockConversation(tx: Executor, conversationId: number): Promise<void> {
  await tx.execute(sql`select id from ${conversations} where id = ${conversationId} for update`);
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
 * it has ended (phase N of its type, N of its pinned version when it has one), else a new one. A conversation at 9999 (the agent chose not to engage)
 * or waiting on a person (-2, -1) continues: the prospect is still talking to the same business.
 */
async function openConversationOf(tx: Executor, account: LiveAccount, prospectId: number): Promise<number> {
  const result = await tx.execute(sql`
    select c.id, c.phase, c.conversation_type_id,
      -- N of the version the conversation is pinned to (issue 25), else of the draft's phases.
      coalesce(
        (select jsonb_array_length(v.snapshot -> 'phases') from ${conversationTypeVersions} v
          where v.conversation_type_id = c.conversation_type_id and v.version = c.type_version),
        (select count(*) from conversation_phases p where p.conversation_type_id = c.conversation_type_id))::int as phase_count
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
      ...startingVersion(account.conversationTypeId),
      // No playbook on the account: a person must answer (spec §3 phase -2).
      phase: account.conversationTypeId === null ? -2 : 0,
    })
    .returning({ id: conversations.id });
  await recordConversationEvent(tx, 'conversation.started', created.id);
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
      await linkChannelMessage(tx, account.id, event.externalId, conversationId, stored.id);
    }
    return { kind: 'human-reply-stored' as const, conversation };
  });
  if (outcome.kind !== 'human-reply-stored') return outcome.kind;
  // The person took over: no automatic nudge on top of their message, and no pending follow-up in the list.
  await endSilence(ctx, outcome.conversation.id);
  emitConversationChanged(ctx, outcome.conversation);
  return 'human-reply-stored';
}
