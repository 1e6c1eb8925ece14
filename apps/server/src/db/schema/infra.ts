import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  primaryKey,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { conversations, prospects } from './conversations.ts';
import { messagingAccounts } from './playbooks.ts';
import { users } from './users.ts';
import { bigserialId, timestampTz, timestampNow, ownedBy, optionalRef } from './columns.ts';

/**
 * Raw inbound channel events, stored before anything else happens so a webhook can answer 200 at once
 * and a redelivery of the same event (same source + external id) is a no-op (DESIGN.md §7).
 */
export const webhookInbox = pgTable(
  'webhook_inbox',
  {
    id: bigserialId(),
    source: text().notNull(),
    externalId: text().notNull(),
    payload: jsonb().notNull(),
    /** Posted by an ADMIN through the webhook simulator (unsigned, same-origin session). */
    simulated: boolean().notNull().default(false),
    receivedAt: timestampNow(),
    processedAt: timestampTz(),
    error: text(),
    /**
     * Whom the raw payload is about, set when it is processed (the simulator's user when stored): the row is
     * erased with any of them (cascade), not only after WEBHOOK_RETENTION_DAYS (jobs/maintenance.ts).
     */
    messagingAccountId: optionalRef(() => messagingAccounts.id, 'cascade'),
    prospectId: optionalRef(() => prospects.id, 'cascade'),
    conversationId: optionalRef(() => conversations.id, 'cascade'),
    userId: optionalRef(() => users.id, 'cascade'),
  },
  (t) => [
    unique().on(t.source, t.externalId),
    index().on(t.processedAt),
    index().on(t.messagingAccountId),
    index().on(t.prospectId),
    index().on(t.conversationId),
    index().on(t.userId),
  ],
);

/**
 * The per-conversation lease of conversations/conversation-lock.ts (PostgreSQL): who runs the conversation's turn
 * and until when. Committed and renewed, so no pooled connection is pinned while the turn waits on its LLM.
 */
export const conversationLocks = pgTable('conversation_locks', {
  conversationId: integer().primaryKey(),
  owner: text().notNull(),
  expiresAt: timestampTz().notNull(),
});

/**
 * Channel message ids per messaging account, inbound and outbound (DESIGN.md §7). The primary key on
 * (account, external id) is what makes a redelivered webhook harmless: the same Meta mid / WhatsApp wamid /
 * Twilio MessageSid is stored once, whichever conversation is open when it comes again. Outbound ids are how
 * the echo of our own send is recognised.
 */
export const channelMessages = pgTable(
  'channel_messages',
  {
    messagingAccountId: ownedBy(() => messagingAccounts.id),
    externalId: text().notNull(),
    direction: text({ enum: ['IN', 'OUT'] }).notNull(),
    conversationId: optionalRef(() => conversations.id, 'cascade'),
    /** bigint like messages.id (a bigserial): an integer column would overflow after 2^31 messages. */
    messageId: bigint({ mode: 'number' }),
    /**
     * What the channel last reported about one of our sends (issue 24): sent when the provider accepted it, then
     * delivered / read / failed from its status webhooks (WhatsApp statuses, Meta delivery/read watermarks, Twilio
     * status callbacks, the SMS gateway's reports). Never moves backwards; null inbound.
     */
    deliveryState: text({ enum: ['sent', 'delivered', 'read', 'failed'] }),
    /** The channel's reason, for a failed send. */
    deliveryError: text(),
    /** Outbound: the moment we asked the channel to send it (Meta's delivery/read watermarks are compared with it). */
    createdAt: timestampNow(),
  },
  (t) => [primaryKey({ columns: [t.messagingAccountId, t.externalId] }), index().on(t.conversationId)],
);

/** Messages waiting to be sent through a channel, retried with backoff (DESIGN.md §7). */
export const outbox = pgTable(
  'outbox',
  {
    id: bigserialId(),
    conversationId: optionalRef(() => conversations.id, 'cascade'),
    messagingAccountId: optionalRef(() => messagingAccounts.id, 'cascade'),
    /** bigint like messages.id (a bigserial): an integer column would overflow after 2^31 messages. */
    messageId: bigint({ mode: 'number' }),
    channel: text().notNull(),
    payload: jsonb().notNull(),
    status: text({ enum: ['PENDING', 'SENT', 'FAILED', 'SIMULATED'] }).notNull().default('PENDING'),
    attempts: integer().notNull().default(0),
    /** Parts of a split reply already delivered: a retry resumes after them instead of repeating them. */
    sentParts: integer().notNull().default(0),
    nextAttemptAt: timestampNow(),
    errorCode: text(),
    lastError: text(),
    createdAt: timestampNow(),
    sentAt: timestampTz(),
  },
  // message_id: a message's delivery state in the conversation detail (issue 24).
  (t) => [index().on(t.status, t.nextAttemptAt), index().on(t.messageId)],
);

/**
 * Durable background jobs (jobs/runner.ts). Claimed with FOR UPDATE SKIP LOCKED so several server
 * processes can share one PostgreSQL without running a job twice. A `singletonKey` allows at most one
 * pending-or-running job per key (e.g. one follow-up per conversation).
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserialId(),
    name: text().notNull(),
    payload: jsonb().notNull().default({}),
    runAt: timestampNow(),
    status: text({ enum: ['pending', 'running', 'done', 'failed'] }).notNull().default('pending'),
    attempts: integer().notNull().default(0),
    maxAttempts: integer().notNull().default(5),
    lockedUntil: timestampTz(),
    singletonKey: text(),
    lastError: text(),
    createdAt: timestampNow(),
    finishedAt: timestampTz(),
  },
  (t) => [
    index().on(t.status, t.runAt),
    uniqueIndex()
      .on(t.singletonKey)
      .where(sql`${t.status} in ('pending', 'running')`),
  ],
);
