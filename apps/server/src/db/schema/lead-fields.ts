import { jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { conversations } from './conversations.ts';
import { users } from './users.ts';
import { timestampNow, ownedBy, optionalRef } from './columns.ts';

/**
 * The lead fields learnt on a conversation (issue 22): one row per declared key, written by the agent's
 * update_lead tool or corrected by a person (`source` 'person': the agent no longer overwrites it).
 */
export const conversationLeadFields = pgTable(
  'conversation_lead_fields',
  {
    conversationId: ownedBy(() => conversations.id),
    key: text().notNull(),
    value: jsonb().$type<string | number | boolean>().notNull(),
    source: text({ enum: ['agent', 'person'] }).notNull(),
    updatedBy: optionalRef(() => users.id),
    updatedAt: timestampNow(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.key] })],
);
