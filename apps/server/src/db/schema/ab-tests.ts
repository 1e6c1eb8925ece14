import { check, doublePrecision, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { conversationTypes } from './playbooks.ts';
import { users } from './users.ts';

/**
 * An A/B test of a conversation type's playbook (issue 26, docs/analytics.md "A/B tests"): while running, each
 * new conversation of the type starts on version A or B (B with probability weightB) and records its arm
 * (conversations.ab_test_id / ab_arm). Stopped with a winner, new conversations pin the winner until a newer
 * version is published. At most one running test per type (partial unique index).
 */
export const abTests = pgTable(
  'ab_tests',
  {
    id: serial().primaryKey(),
    conversationTypeId: integer()
      .notNull()
      .references(() => conversationTypes.id, { onDelete: 'cascade' }),
    versionA: integer().notNull(),
    versionB: integer().notNull(),
    /** Share (0..1) of new conversations sent to B. */
    weightB: doublePrecision().notNull(),
    /** 'A' or 'B' once stopped with a winner; null while running or stopped without one. */
    winner: text({ enum: ['A', 'B'] }),
    startedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    stoppedAt: timestamp({ withTimezone: true }),
    createdByUserId: integer().references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    index().on(t.conversationTypeId, t.id.desc()),
    uniqueIndex('ab_tests_one_running_per_type').on(t.conversationTypeId).where(sql`${t.stoppedAt} is null`),
    check('ab_tests_weight_b', sql`${t.weightB} >= 0 and ${t.weightB} <= 1`),
  ],
);
