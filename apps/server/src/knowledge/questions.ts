import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/executor.ts';
import { conversations, conversationTypes, knowledgeQuestions } from '../db/schema/index.ts';

/**
 * Questions the agent could not answer from the knowledge base (issue 21 item 4). Phrasings of one question
 * share a key: the sorted English lexemes of the text (PostgreSQL's own stemming and stop words, so "What
 * does installation cost?" and "installation cost??" group together).
 */

/** Longest question kept. */
const QUESTION_MAX = 1000;
/** Open questions read for the grouped list (the newest). */
const LIST_LIMIT = 2000;

/** Records one question the agent could not answer. */
export async function recordUnansweredQuestion(
  db: Executor,
  values: { conversationId: number; conversationTypeId: number | null; question: string },
): Promise<void> {
  const question = values.question.replace(/\s+/g, ' ').trim().slice(0, QUESTION_MAX);
  if (!question) return;
  const lexemes = sql`array_to_string(tsvector_to_array(to_tsvector('english', ${question})), ' ')`;
  await db.insert(knowledgeQuestions).values({
    conversationId: values.conversationId,
    conversationTypeId: values.conversationTypeId,
    question,
    questionKey: sql`coalesce(nullif(${lexemes}, ''), lower(${question}))`,
  });
}

export interface QuestionGroup {
  key: string;
  /** The newest phrasing. */
  question: string;
  count: number;
  lastAskedAt: string;
  conversations: { uuid: string; typeTitle: string | null }[];
  /** The types that were asked: where an FAQ entry would help first. */
  conversationTypeIds: number[];
}

/** Open questions grouped by key, most asked first (then the most recent). */
export async function listQuestionGroups(db: Executor): Promise<QuestionGroup[]> {
  const rows = await db
    .select({
      key: knowledgeQuestions.questionKey,
      question: knowledgeQuestions.question,
      createdAt: knowledgeQuestions.createdAt,
      typeId: knowledgeQuestions.conversationTypeId,
      uuid: conversations.uuid,
      typeTitle: conversationTypes.title,
    })
    .from(knowledgeQuestions)
    .innerJoin(conversations, eq(conversations.id, knowledgeQuestions.conversationId))
    .leftJoin(conversationTypes, eq(conversationTypes.id, knowledgeQuestions.conversationTypeId))
    .where(isNull(knowledgeQuestions.resolvedAt))
    .orderBy(desc(knowledgeQuestions.createdAt), desc(knowledgeQuestions.id))
    .limit(LIST_LIMIT);
  const groups = new Map<string, QuestionGroup>();
  for (const row of rows) {
    let group = groups.get(row.key);
    if (!group) {
      group = { key: row.key, question: row.question, count: 0, lastAskedAt: row.createdAt.toISOString(), conversations: [], conversationTypeIds: [] };
      groups.set(row.key, group);
    }
    group.count += 1;
    if (!group.conversations.some((c) => c.uuid === row.uuid)) group.conversations.push({ uuid: row.uuid, typeTitle: row.typeTitle });
    if (row.typeId !== null && !group.conversationTypeIds.includes(row.typeId)) group.conversationTypeIds.push(row.typeId);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || b.lastAskedAt.localeCompare(a.lastAskedAt));
}

/** Closes the open questions of a group (answered by an FAQ entry, or dismissed); returns how many. */
export async function resolveQuestionGroup(db: Executor, key: string, faqSourceId: number | null): Promise<number> {
  const open = await db
    .select({ id: knowledgeQuestions.id })
    .from(knowledgeQuestions)
    .where(and(eq(knowledgeQuestions.questionKey, key), isNull(knowledgeQuestions.resolvedAt)));
  if (open.length === 0) return 0;
  await db
    .update(knowledgeQuestions)
    .set({ resolvedAt: new Date(), faqSourceId })
    .where(inArray(knowledgeQuestions.id, open.map((q) => q.id)));
  return open.length;
}
