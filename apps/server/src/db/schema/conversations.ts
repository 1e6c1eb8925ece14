import {
  boolean,
  check,
  customType,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  unique,
  uniqueIndex,
  primaryKey,
  uuid,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { conversationTypes, messagingAccounts } from './playbooks.ts';
import { users } from './users.ts';
import { contacts } from './contacts.ts';
import { serialId, bigserialId, timestampTz, timestampNow, ownedBy, optionalRef } from './columns.ts';
import { abTests } from './ab-tests.ts';

/** The person on the other side of a channel: one per (account, external sender id). */
export const prospects = pgTable(
  'prospects',
  {
    id: serialId(),
    uuid: uuid().notNull().unique().defaultRandom(),
    messagingAccountId: ownedBy(() => messagingAccounts.id),
    /** Instagram/Messenger scoped id, WhatsApp/SMS phone number, … */
    externalId: text().notNull(),
    name: text(),
    /**
     * WhatsApp: the business-scoped user id (BSUID, `from_user_id`) when the prospect is keyed by phone, or the
     * same as externalId when they came without a phone; a later message with either id continues the prospect.
     */
    scopedUserId: text(),
    /** Created by the webhook simulator: replies are stored and shown but never sent to a real network. */
    simulated: boolean().notNull().default(false),
    /** The person behind this handle (issue 24): one contact may have handles on several channels. */
    contactId: optionalRef(() => contacts.id),
    createdAt: timestampNow(),
  },
  (t) => [
    // A sender id used in the webhook simulator and the real person with that id are two prospects: a
    // simulated row never captures a real person's messages (whose replies would then never be sent).
    unique('prospects_account_external_simulated_unique').on(t.messagingAccountId, t.externalId, t.simulated),
    uniqueIndex('prospects_account_scoped_user_unique')
      .on(t.messagingAccountId, t.scopedUserId, t.simulated)
      .where(sql`${t.scopedUserId} is not null`),
    // Target of conversations' (prospect_id, messaging_account_id) foreign key.
    unique('prospects_id_messaging_account_id_unique').on(t.id, t.messagingAccountId),
    index().on(t.contactId),
    // Search (issue 24): the prospect's name and handle as words.
    index('prospects_search_index').using('gin', sql`to_tsvector('simple', coalesce(${t.name}, '') || ' ' || ${t.externalId})`),
  ],
);

/**
 * One conversation with the agent (spec §3). A conversation without a prospect is a web chat, reachable
 * by uuid alone (DESIGN.md §5).
 */
export const conversations = pgTable(
  'conversations',
  {
    id: serialId(),
    uuid: uuid().notNull().unique().defaultRandom(),
    phase: integer().notNull().default(0),
    /** While phase is -3 (waiting for more messages) the working phase to resume. */
    resumePhase: integer(),
    conversationTypeId: optionalRef(() => conversationTypes.id),
    /** The published playbook version the conversation started on (issue 25); null: the type's draft (never published). */
    typeVersion: integer(),
    /** The A/B test (issue 26) this conversation was split by, and its arm; null outside a test. */
    abTestId: integer().references(() => abTests.id, { onDelete: 'set null' }),
    abArm: text({ enum: ['A', 'B'] }),
    rating: integer(),
    recordingDuration: integer(),
    recordingUrl: text(),
    messagesCount: integer().notNull().default(0),
    lastMessageDate: timestampTz(),
    prospectId: optionalRef(() => prospects.id, 'cascade'),
    /**
     * The prospect's messaging account, copied onto the conversation so the list can filter a NORMAL user's
     * granted accounts with an index range instead of a join (docs/performance.md "Conversation list").
     * Null exactly when prospectId is null (web chat); the composite foreign key below keeps it equal to the
     * prospect's account (and follows it if that ever changes).
     */
    messagingAccountId: optionalRef(() => messagingAccounts.id, 'cascade'),
    /** Set when a human writes on a prospect conversation; the agent stays silent until the phase is set. */
    aiPaused: boolean().notNull().default(false),
    promptTokens: integer().notNull().default(0),
    completionTokens: integer().notNull().default(0),
    costUsd: doublePrecision().notNull().default(0),
    /** Twilio call SID, GHL contact id … of the channel that started it, when any. */
    externalRef: text(),
    // Phone calls (docs/voice.md). All null on chats.
    /** Twilio's CallSid of the call this conversation is (unique: an inbound webhook delivered twice). */
    callSid: text(),
    /** ringing, in-progress, completed, busy, no-answer, failed, canceled or voicemail (Twilio's words). */
    callStatus: text(),
    callDirection: text({ enum: ['outbound', 'inbound'] }),
    /** Realtime bridge (true) or the classic Gather → agent turn → TTS pipeline (false). */
    useRealtimeApi: boolean(),
    /** The CRM contact the call was placed for (POST /api/admin/call contactId); the CRM code reads it. */
    crmContactId: text(),
    /**
     * A tool call the agent holds until the prospect says yes (a tool configured with `"confirm": true`, issue
     * 22): `{name, arguments, action, at}`. Kept on the row so a restart between question and answer loses nothing.
     */
    pendingToolCall: jsonb(),
    /** Twilio's answering-machine verdict: human, machine_start, machine_end_beep, fax, unknown. */
    answeredBy: text(),
    /** Billed call length in seconds (Twilio's CallDuration). */
    callDuration: integer(),
    /** Characters sent to text-to-speech on this call (priced per million). */
    ttsCharacters: integer().notNull().default(0),
    /**
     * Telephony and speech part of costUsd (Twilio minutes, recording, detection, speech recognition, TTS);
     * costUsd stays the conversation's total, so LLM tokens are costUsd - callCostUsd.
     */
    callCostUsd: doublePrecision().notNull().default(0),
    // Analytics (docs/analytics.md), kept by the database triggers of migration "analytics-triggers" on every
    // write path (agent turns, webhooks, calls, manual phase changes), never written by the application.
    /** The highest phase 0..N this conversation was ever in (null: never in one, e.g. only -2 or 9999). */
    maxPhase: integer(),
    /** When the prospect's first message was stored. */
    firstProspectMessageAt: timestampTz(),
    /** When the first AGENT message after the prospect's first message was stored (the first reply). */
    firstReplyAt: timestampTz(),
    /** Whether a person (true) or the AI (false) wrote that first reply. */
    firstReplyByHuman: boolean(),
    /**
     * Realtime calls (docs/analytics.md "Voice"): the agent's response latency of each turn in milliseconds, the
     * caller's end of speech (OpenAI's input_audio_buffer.speech_stopped) to the first agent audio sent to Twilio,
     * appended by the bridge (voice/realtime/bridge.ts) as it measures them; null on other conversations.
     */
    responseLatenciesMs: integer().array(),
    // The team's workspace (issue 24, docs/workspace.md).
    /** The teammate who owns it; null = unassigned. */
    assigneeUserId: optionalRef(() => users.id),
    /** open or resolved; a resolved conversation reopens when the prospect writes again. */
    state: text({ enum: ['open', 'resolved'] }).notNull().default('open'),
    /** Snoozed until then (hidden from the open views); cleared when the prospect writes. */
    snoozedUntil: timestampTz(),
    /**
     * A web chat's contact (issue 24): created when the visitor types an email or phone number. Null on prospect
     * conversations, whose contact is their prospect's.
     */
    contactId: optionalRef(() => contacts.id),
    createdAt: timestampNow(),
    updatedAt: timestampNow(),
  },
  (t) => [
    foreignKey({
      name: 'conversations_prospect_account_fk',
      columns: [t.prospectId, t.messagingAccountId],
      foreignColumns: [prospects.id, prospects.messagingAccountId],
    })
      .onDelete('cascade')
      .onUpdate('cascade'),
    check('conversations_account_with_prospect', sql`(${t.prospectId} is null) = (${t.messagingAccountId} is null)`),
    // The list (docs/performance.md "Conversation list"): every order is an index, so a page is a scan that
    // stops after `limit` rows. Each filter with an index of its own has one per order; the other filter
    // columns trail the key, so the remaining filters are checked in the index (no heap visit for a row that
    // fails them) and the capped count is an index-only scan.
    index().on(t.lastMessageDate.desc(), t.id.desc()),
    index().on(t.createdAt.desc(), t.id.desc()),
    // A NORMAL user's list: both orders within one granted account (also serves the account foreign key).
    index('conversations_account_last_message_index').on(
      t.messagingAccountId, t.lastMessageDate.desc(), t.id.desc(), t.phase, t.conversationTypeId, t.rating, t.recordingDuration,
    ),
    index('conversations_account_created_index').on(
      t.messagingAccountId, t.createdAt.desc(), t.id.desc(), t.phase, t.conversationTypeId, t.rating, t.recordingDuration,
    ),
    // conversationType (also serves the type foreign key).
    index('conversations_type_last_message_index').on(
      t.conversationTypeId, t.lastMessageDate.desc(), t.id.desc(), t.phase, t.rating, t.recordingDuration, t.messagingAccountId,
    ),
    index('conversations_type_created_index').on(
      t.conversationTypeId, t.createdAt.desc(), t.id.desc(), t.phase, t.rating, t.recordingDuration, t.messagingAccountId,
    ),
    index('conversations_phase_last_message_index').on(
      t.phase, t.lastMessageDate.desc(), t.id.desc(), t.conversationTypeId, t.rating, t.recordingDuration, t.messagingAccountId,
    ),
    index('conversations_phase_created_index').on(
      t.phase, t.createdAt.desc(), t.id.desc(), t.conversationTypeId, t.rating, t.recordingDuration, t.messagingAccountId,
    ),
    // hasRecording=true (10 % of rows in the benchmark): partial indexes of both orders.
    index('conversations_recorded_last_message_index')
      .on(t.lastMessageDate.desc(), t.id.desc(), t.phase, t.conversationTypeId, t.rating, t.recordingDuration, t.messagingAccountId)
      .where(sql`${t.recordingUrl} is not null`),
    index('conversations_recorded_created_index')
      .on(t.createdAt.desc(), t.id.desc(), t.phase, t.conversationTypeId, t.rating, t.recordingDuration, t.messagingAccountId)
      .where(sql`${t.recordingUrl} is not null`),
    index().on(t.prospectId),
    // Analytics (docs/analytics.md): the funnel and speed figures of a type and date range are one range scan
    // of this index, answered from the index alone.
    index('conversations_analytics_index').on(
      t.conversationTypeId, t.createdAt, t.maxPhase, t.messagingAccountId, t.firstProspectMessageAt, t.firstReplyAt,
    ),
    index('conversations_contact_index').on(t.contactId).where(sql`${t.contactId} is not null`),
    index('conversations_assignee_last_message_index').on(t.assigneeUserId, t.lastMessageDate.desc(), t.id.desc()),
    uniqueIndex('conversations_call_sid_unique')
      .on(t.callSid)
      .where(sql`${t.callSid} is not null`),
  ],
);

export const messages = pgTable(
  'messages',
  {
    id: bigserialId(),
    conversationId: ownedBy(() => conversations.id),
    role: text({ enum: ['SYSTEM', 'PROSPECT', 'AGENT'] }).notNull(),
    message: text().notNull(),
    dateSent: timestampNow(),
    /** Channel message id (Meta mid, Twilio SID …); unique per conversation so redelivery is harmless. */
    externalId: text(),
    /** True when a person (not the AI) wrote this AGENT message. */
    writtenByHuman: boolean().notNull().default(false),
    /** The teammate who wrote it (writtenByHuman), kept for the author shown on the message (issue 24). */
    authorUserId: optionalRef(() => users.id),
    /** The prospect edited this message (Instagram/Messenger message_edit): the text before the latest edit. */
    previousMessage: text(),
    editedAt: timestampTz(),
    /** The prospect deleted this message on their side; it stays, shown as deleted. */
    deletedAt: timestampTz(),
    /** A voice note or picture the prospect sent, stored by us (lib/storage.ts key) with its media type. */
    mediaKey: text(),
    mediaType: text(),
  },
  (t) => [
    index().on(t.conversationId, t.dateSent, t.id),
    uniqueIndex()
      .on(t.conversationId, t.externalId)
      .where(sql`${t.externalId} is not null`),
  ],
);

/** PostgreSQL's full-text document type (written only by the database triggers below). */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * The inbox search document of a conversation (issue 24, docs/workspace.md "Search"): one row per conversation
 * with the words of its prospect (name, handle), its contact (name, email, phone), the digits of those phone
 * numbers and the words of its messages, so `q` is one GIN probe instead of a join per source. Kept by the
 * triggers of migration "conversation-search-triggers" on every write path; never written by the application.
 * A side table rather than a column of conversations: the many reads of a whole conversation row never carry
 * it, and a new message rewrites this narrow row instead of the conversation with its dozen indexes.
 */
export const conversationSearch = pgTable(
  'conversation_search',
  {
    conversationId: integer()
      .primaryKey()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    /** Distinct lexemes without positions (strip), at most 8,000; see the migration for what goes in. */
    doc: tsvector().notNull(),
  },
  (t) => [index('conversation_search_doc_index').using('gin', t.doc)],
);

/** Conversations waiting on the prospect, with their follow-up state (spec §2.9). */
export const unansweredConversations = pgTable(
  'unanswered_conversations',
  {
    id: serialId(),
    conversationId: ownedBy(() => conversations.id).unique(),
    status: text({ enum: ['ACTIVE', 'INACTIVE'] }).notNull().default('ACTIVE'),
    followUpCount: integer().notNull().default(0),
    earliestReplyDateTime: timestampTz().notNull(),
    /** JSON text of an array of { message, type, code, status, method, url, response, details }. */
    errors: text().notNull().default('[]'),
    createdAt: timestampNow(),
    updatedAt: timestampNow(),
  },
  (t) => [index().on(t.status)],
);

/** Per-call LLM usage, so cost per conversation can be audited (DESIGN.md §6). */
export const llmUsage = pgTable(
  'llm_usage',
  {
    id: bigserialId(),
    conversationId: optionalRef(() => conversations.id, 'cascade'),
    purpose: text().notNull(),
    model: text().notNull(),
    promptTokens: integer().notNull(),
    completionTokens: integer().notNull(),
    costUsd: doublePrecision().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.conversationId)],
);

/**
 * Each team member's own read state of a conversation (issue 12, the inbox's unread marks): the same on every
 * device of that user, independent of colleagues. A conversation is unread for a user when its latest message
 * is the prospect's and came after `lastReadAt` (or the user never read it). It only moves forwards.
 */
export const conversationReads = pgTable(
  'conversation_reads',
  {
    userId: ownedBy(() => users.id),
    conversationId: ownedBy(() => conversations.id),
    lastReadAt: timestampTz().notNull(),
  },
  (t) => [
    // The list joins its page's rows on (user, conversation): one primary-key probe per row.
    primaryKey({ columns: [t.userId, t.conversationId] }),
    // Deleting a conversation cascades here: without it that delete would scan the table.
    index().on(t.conversationId),
  ],
);
