import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { bigserialId, ownedBy, timestampNow, timestampTz } from './columns.ts';
import { conversations } from './conversations.ts';

/**
 * Each time a conversation was handed to a person (issue 26, docs/analytics.md "Hand-offs"): the agent's reason
 * code (HUMAN_REQUESTED, NOT_IN_KNOWLEDGE, GUARD_FAILED, NO_LLM) or TAKEN_OVER (a person paused the AI: Take
 * over, or wrote to the prospect themselves), and when a person first answered after it. Opened by the
 * application (conversations/handoffs.ts) or, for a person writing on an unpaused conversation, by the trigger
 * of migration "handoff-follow-up-triggers", which also sets answered_at.
 */
export const handoffs = pgTable(
  'handoffs',
  {
    id: bigserialId(),
    conversationId: ownedBy(() => conversations.id),
    reason: text().notNull(),
    handedAt: timestampNow(),
    /** The first message a person wrote (AGENT, written_by_human) at or after handedAt; null until then. */
    answeredAt: timestampTz(),
  },
  (t) => [index().on(t.conversationId, t.handedAt)],
);

/**
 * Each follow-up the agent sent (issue 26, docs/analytics.md "Follow-ups"; sentAt is its message's date_sent), and whether it brought the prospect
 * back: repliedAt is the prospect's first message after it and before the next follow-up, set by a trigger on
 * messages (migration "handoff-follow-up-triggers").
 */
export const followUps = pgTable(
  'follow_ups',
  {
    id: bigserialId(),
    conversationId: ownedBy(() => conversations.id),
    sentAt: timestampNow(),
    repliedAt: timestampTz(),
  },
  (t) => [index().on(t.conversationId, t.sentAt)],
);

/** An int[] counter array starting at subscript 1 ('{0}'), so unnest … with ordinality gives the subscript. */
const counters = () => integer().array().notNull().default(sql`'{0}'`);

/**
 * The funnel and speed figures of conversations, rolled up per created month (UTC) and the filters' keys (issue 26,
 * docs/analytics.md "Fast at scale"): a whole month of a range reads one row per account instead of every
 * conversation. Kept by the triggers of migration "analytics-monthly" on conversations (insert, delete, and any
 * change of the columns below: a manual phase change, the first-message stamps), backfilled once by it.
 * messagingAccountId 0 is a web chat or call without an account; typeVersion 0 is a draft (type_version null).
 */
export const analyticsMonthly = pgTable(
  'analytics_monthly',
  {
    conversationTypeId: integer().notNull(),
    month: date({ mode: 'string' }).notNull(),
    messagingAccountId: integer().notNull(),
    isCall: boolean().notNull(),
    typeVersion: integer().notNull(),
    conversations: integer().notNull().default(0),
    /** [1]: max_phase null (never in 0..N), [k + 2]: conversations whose max_phase is k. */
    maxPhaseCounts: counters(),
    withProspectMessage: integer().notNull().default(0),
    replied: integer().notNull().default(0),
    withinMinute: integer().notNull().default(0),
    /** First-reply seconds histograms, [b + 1] counting bucket b of analytics_reply_bucket() (docs/analytics.md). */
    agentReplyBuckets: counters(),
    teamReplyBuckets: counters(),
  },
  (t) => [primaryKey({ columns: [t.conversationTypeId, t.month, t.messagingAccountId, t.isCall, t.typeVersion] })],
);
