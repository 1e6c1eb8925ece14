import { boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { conversations } from './conversations.ts';
import { bigserialId, timestampTz, timestampNow, ownedBy } from './columns.ts';

/**
 * Every tool the agent called in a turn (docs/agent.md "Tools"): its arguments and what it answered, kept on
 * the conversation for admins (never shown to the prospect) and for debugging a booking that went wrong.
 */
export const agentToolCalls = pgTable(
  'agent_tool_calls',
  {
    id: bigserialId(),
    conversationId: ownedBy(() => conversations.id),
    name: text().notNull(),
    arguments: jsonb().notNull(),
    /** What the model was given back (JSON or text, capped). */
    result: text().notNull(),
    ok: boolean().notNull(),
    durationMs: integer().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.conversationId)],
);

/** A meeting the agent booked for the prospect, as the calendar provider confirmed it. */
export const bookings = pgTable(
  'bookings',
  {
    id: bigserialId(),
    conversationId: ownedBy(() => conversations.id),
    provider: text({ enum: ['ghl', 'calcom', 'demo'] }).notNull(),
    externalId: text().notNull(),
    start: timestampTz().notNull(),
    end: timestampTz().notNull(),
    timeZone: text().notNull(),
    status: text({ enum: ['booked', 'rescheduled', 'cancelled'] }).notNull().default('booked'),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.conversationId)],
);

/**
 * The outcome analysis of an ended conversation (issue 22, docs/agent.md "Outcome analysis"): a summary, one
 * outcome of the type's `outcomes` list and a 0–100 score against its `successRubric`. One row per
 * conversation, rewritten when it ends again; analytics reads it as it is (keep it plain).
 */
export const conversationAnalyses = pgTable(
  'conversation_analyses',
  {
    conversationId: integer()
      .primaryKey()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    summary: text().notNull(),
    outcome: text().notNull(),
    score: integer().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.outcome)],
);
