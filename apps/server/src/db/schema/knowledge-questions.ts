import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { conversations } from './conversations.ts';
import { conversationTypes } from './playbooks.ts';
import { knowledgeSources } from './knowledge.ts';
import { serialId, timestampTz, timestampNow, ownedBy, optionalRef } from './columns.ts';

/**
 * A question the agent could not answer from the knowledge base (issue 21 "Unanswered questions become
 * knowledge"). `questionKey` groups phrasings of one question (the sorted English lexemes of the text);
 * a question is resolved when an admin turns its group into an FAQ entry (`faqSourceId`) or dismisses it.
 */
export const knowledgeQuestions = pgTable(
  'knowledge_questions',
  {
    id: serialId(),
    conversationId: ownedBy(() => conversations.id),
    conversationTypeId: optionalRef(() => conversationTypes.id),
    question: text().notNull(),
    questionKey: text().notNull(),
    createdAt: timestampNow(),
    resolvedAt: timestampTz(),
    faqSourceId: optionalRef(() => knowledgeSources.id),
  },
  (t) => [index().on(t.questionKey), index().on(t.conversationId)],
);
