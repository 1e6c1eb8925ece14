import { and, asc, eq, sql } from 'drizzle-orm';
import type { KnowledgeSourceBody } from '@sales-agent/shared/schemas/knowledge';
import type { AppContext } from '../../context.ts';
import { conversations, knowledgeChunks, knowledgeCollections, knowledgeSources } from '../../db/schema/index.ts';
import { passagesOfConversation, plainPassage } from '../../knowledge/turn-knowledge.ts';
import { KNOWLEDGE_INGEST_JOB } from '../../knowledge/ingest.job.ts';
import { documentKind } from '../../knowledge/parse-document.ts';
import { parseFaqCsv } from '../../knowledge/faq-csv.ts';
import { searchKnowledge } from '../../knowledge/search.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { outboundUrlProblem } from '../../lib/outbound-url.ts';
import { listQuestionGroups, resolveQuestionGroup } from '../../knowledge/questions.ts';
import { previewKnowledgeAnswer } from '../../agent/agent.service.ts';

// Correlated counts name their tables in full: drizzle renders a bare column inside a subquery unqualified.
const chunkCount = sql<number>`(select count(*) from knowledge_chunks c where c.source_id = knowledge_sources.id)`.mapWith(Number);

export async function createCollection(ctx: AppContext, name: string) {
  const [row] = await ctx.db.insert(knowledgeCollections).values({ name }).returning({ id: knowledgeCollections.id });
  return row;
}

export async function listCollections(ctx: AppContext) {
  const rows = await ctx.db
    .select({
      id: knowledgeCollections.id,
      name: knowledgeCollections.name,
      createdAt: knowledgeCollections.createdAt,
      sources: sql<number>`(select count(*) from knowledge_sources s where s.collection_id = knowledge_collections.id)`.mapWith(Number),
      chunks: sql<number>`(select count(*) from knowledge_chunks c where c.collection_id = knowledge_collections.id)`.mapWith(Number),
    })
    .from(knowledgeCollections)
    .orderBy(asc(knowledgeCollections.id));
  return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
}

async function requireCollection(ctx: AppContext, id: number) {
  const [row] = await ctx.db.select({ id: knowledgeCollections.id }).from(knowledgeCollections).where(eq(knowledgeCollections.id, id));
  if (!row) throw notFound('Knowledge collection not found');
  return row;
}

export async function deleteCollection(ctx: AppContext, id: number) {
  const deleted = await ctx.db.delete(knowledgeCollections).where(eq(knowledgeCollections.id, id)).returning({ id: knowledgeCollections.id });
  if (deleted.length === 0) throw notFound('Knowledge collection not found');
}

type NewSource = Omit<typeof knowledgeSources.$inferInsert, 'collectionId'>;

/** Stores the source as queued and enqueues its ingestion in the same transaction (it survives a restart). */
async function addSource(ctx: AppContext, collectionId: number, values: NewSource) {
  await requireCollection(ctx, collectionId);
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.insert(knowledgeSources).values({ ...values, collectionId }).returning({ id: knowledgeSources.id });
    await ctx.jobs.enqueue(KNOWLEDGE_INGEST_JOB, { sourceId: row.id }, { executor: tx });
    return row;
  });
}

export async function addJsonSource(ctx: AppContext, collectionId: number, body: KnowledgeSourceBody) {
  if (body.type === 'faq') {
    return addSource(ctx, collectionId, { type: 'faq', title: body.question, question: body.question, answer: body.answer });
  }
  // The crawler checks every fetch again; this refuses a private address when it is typed (docs/security.md).
  const problem = await outboundUrlProblem(body.url, { allowPrivate: ctx.config.ALLOW_PRIVATE_URLS });
  if (problem) throw badRequest(`url: ${problem}`, 'VALIDATION_ERROR');
  return addSource(ctx, collectionId, { type: 'website', title: new URL(body.url).host, url: body.url, refreshSchedule: body.refresh ?? 'off' });
}

export function addDocument(ctx: AppContext, collectionId: number, file: { fileName: string; mimeType: string; bytes: Buffer }) {
  if (!documentKind(file.fileName)) {
    throw badRequest('Upload a PDF, DOCX, Markdown (.md), text (.txt), HTML or CSV file.', 'UNSUPPORTED_MEDIA_TYPE');
  }
  if (file.bytes.length === 0) throw badRequest('The file is empty.');
  return addSource(ctx, collectionId, {
    type: 'document',
    title: file.fileName,
    fileName: file.fileName,
    mimeType: file.mimeType,
    content: file.bytes,
  });
}

export async function listSources(ctx: AppContext, collectionId: number) {
  await requireCollection(ctx, collectionId);
  const rows = await ctx.db
    .select({
      id: knowledgeSources.id,
      type: knowledgeSources.type,
      title: knowledgeSources.title,
      url: knowledgeSources.url,
      refresh: knowledgeSources.refreshSchedule,
      status: knowledgeSources.status,
      error: knowledgeSources.error,
      items: knowledgeSources.items,
      chunks: chunkCount,
      refreshedAt: knowledgeSources.refreshedAt,
      createdAt: knowledgeSources.createdAt,
    })
    .from(knowledgeSources)
    .where(eq(knowledgeSources.collectionId, collectionId))
    .orderBy(asc(knowledgeSources.id));
  return rows.map(({ error, ...row }) => ({
    ...row,
    ...(error ? { error } : {}),
    refreshedAt: row.refreshedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  }));
}

/** Re-reads a source now: it goes back to queued and its chunks are replaced when the job finishes. */
export async function refreshSource(ctx: AppContext, collectionId: number, sourceId: number) {
  await ctx.db.transaction(async (tx) => {
    const updated = await tx
      .update(knowledgeSources)
      .set({ status: 'queued', error: null })
      .where(and(eq(knowledgeSources.id, sourceId), eq(knowledgeSources.collectionId, collectionId)))
      .returning({ id: knowledgeSources.id });
    if (updated.length === 0) throw notFound('Knowledge source not found');
    await ctx.jobs.enqueue(KNOWLEDGE_INGEST_JOB, { sourceId }, { executor: tx });
  });
}

/** Deletes a source; its chunks go with it (foreign key cascade). */
export async function deleteSource(ctx: AppContext, collectionId: number, sourceId: number) {
  const deleted = await ctx.db
    .delete(knowledgeSources)
    .where(and(eq(knowledgeSources.id, sourceId), eq(knowledgeSources.collectionId, collectionId)))
    .returning({ id: knowledgeSources.id });
  if (deleted.length === 0) throw notFound('Knowledge source not found');
}

export async function searchCollection(ctx: AppContext, collectionId: number, query: string, limit?: number) {
  await requireCollection(ctx, collectionId);
  return { results: (await searchKnowledge(ctx, [collectionId], query, limit)).map(plainPassage) };
}


export async function conversationPassages(ctx: AppContext, uuid: string) {
  const [conversation] = await ctx.db.select({ id: conversations.id }).from(conversations).where(eq(conversations.uuid, uuid));
  if (!conversation) throw notFound('Conversation not found', 'CONVERSATION_NOT_FOUND');
  return passagesOfConversation(ctx.db, conversation.id);
}

/** FAQ entries from a CSV (question, answer columns): one source and one ingestion job per row, all or none. */
export async function importFaqCsv(ctx: AppContext, collectionId: number, bytes: Buffer) {
  await requireCollection(ctx, collectionId);
  const parsed = parseFaqCsv(bytes.toString('utf8'));
  if (!parsed.ok) throw badRequest(parsed.error);
  if (parsed.entries.length === 0) throw badRequest('The CSV has no row with both a question and an answer.');
  await ctx.db.transaction(async (tx) => {
    const rows = await tx
      .insert(knowledgeSources)
      .values(parsed.entries.map((e) => ({ collectionId, type: 'faq' as const, title: e.question, question: e.question, answer: e.answer })))
      .returning({ id: knowledgeSources.id });
    for (const row of rows) await ctx.jobs.enqueue(KNOWLEDGE_INGEST_JOB, { sourceId: row.id }, { executor: tx });
  });
  return { created: parsed.entries.length, skipped: parsed.skipped };
}

/** The test box's agent answer (issue 21 item 5): the chosen type's draft from this collection's passages. */
export async function askCollection(ctx: AppContext, collectionId: number, typeId: number, query: string) {
  await requireCollection(ctx, collectionId);
  return previewKnowledgeAnswer(ctx, typeId, [collectionId], query);
}

export async function listUnansweredQuestions(ctx: AppContext) {
  return { groups: await listQuestionGroups(ctx.db) };
}

/** "Add as FAQ": one FAQ entry (queued for ingestion) answers every open question of the group. */
export async function answerQuestionGroup(ctx: AppContext, body: { key: string; collectionId: number; question: string; answer: string }) {
  const source = await addJsonSource(ctx, body.collectionId, { type: 'faq', question: body.question, answer: body.answer });
  const resolved = await resolveQuestionGroup(ctx.db, body.key, source.id);
  return { id: source.id, resolved };
}

export async function dismissQuestionGroup(ctx: AppContext, key: string) {
  const resolved = await resolveQuestionGroup(ctx.db, key, null);
  if (resolved === 0) throw notFound('No open question with this key');
  return resolved;
}
