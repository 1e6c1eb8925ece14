import { index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { conversations } from './conversations.ts';
import { conversationTypes } from './playbooks.ts';
import { knowledgeSources } from './knowledge.ts';

/**
 * A question the agent could not answer from the knowledge base (issue 21 "Unanswered questions become
 * knowledge"). `questionKey` groups phrasings of one question (the sorted English lexemes of the text);
 * a question is resolved when an admin turns its group into an FAQ entry (`faqSourceId`) or dismisses it.
 */
export const knowledgeQuestions = pgTable(
  'knowledge_questions',
  {
    id: serial().primaryKey(),
    conversationId: integer()
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    conversationTypeId: integer().references(() => conversationTypes.id, { onDelete: 'set null' }),
    question: text().notNull(),
    questionKey: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp({ withTimezone: true }),
    faqSourceId: integer().references(() => knowledgeSources.id, { onDelete: 'set null' }),
  },
  (t) => [index().on(t.questionKey), index().on(t.conversationId)],
);
