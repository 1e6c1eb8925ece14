import { integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { conversations } from './conversations.ts';
import { users } from './users.ts';

/**
 * The lead fields learnt on a conversation (issue 22): one row per declared key, written by the agent's
 * update_lead tool or corrected by a person (`source` 'person': the agent no longer overwrites it).
 */
export const conversationLeadFields = pgTable(
  'conversation_lead_fields',
  {
    conversationId: integer()
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    key: text().notNull(),
    value: jsonb().$type<string | number | boolean>().notNull(),
    source: text({ enum: ['agent', 'person'] }).notNull(),
    updatedBy: integer().references(() => users.id, { onDelete: 'set null' }),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.key] })],
);
