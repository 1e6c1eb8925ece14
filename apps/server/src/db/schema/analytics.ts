import { index, pgTable, text } from 'drizzle-orm/pg-core';
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
