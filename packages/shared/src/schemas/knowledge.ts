import { z } from 'zod';
import { idParam } from './common.ts';

/** Issue 21: knowledge collections, their sources and retrieval. */

export const KNOWLEDGE_SOURCE_STATUSES = ['queued', 'processing', 'ready', 'failed'] as const;
export const KNOWLEDGE_SOURCE_TYPES = ['faq', 'document', 'website'] as const;
/** Largest uploaded document. */
export const KNOWLEDGE_DOCUMENT_MAX_BYTES = 20 * 1024 * 1024;
/** The multipart field of a document upload. */
export const KNOWLEDGE_UPLOAD_FIELD = 'file';

export const knowledgeCollectionBody = z.object({ name: z.string().trim().min(1).max(200) });
export const knowledgeCollection = z.object({
  id: z.number().int(),
  name: z.string(),
  sources: z.number().int(),
  chunks: z.number().int(),
  createdAt: z.string(),
});
export const knowledgeCollectionList = z.array(knowledgeCollection);
export type KnowledgeCollection = z.infer<typeof knowledgeCollection>;

export const knowledgeSourceBody = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('faq'),
    question: z.string().trim().min(1).max(2000),
    answer: z.string().trim().min(1).max(20_000),
  }),
  z.object({
    type: z.literal('website'),
    url: z.url({ protocol: /^https?$/ }).max(2000),
    refresh: z.enum(['off', 'daily', 'weekly', 'monthly']).optional(),
  }),
]);
export type KnowledgeSourceBody = z.infer<typeof knowledgeSourceBody>;

export const knowledgeSource = z.object({
  id: z.number().int(),
  type: z.enum(KNOWLEDGE_SOURCE_TYPES),
  title: z.string(),
  url: z.string().nullable(),
  /** Website re-crawl schedule. */
  refresh: z.enum(['off', 'daily', 'weekly', 'monthly']),
  status: z.enum(KNOWLEDGE_SOURCE_STATUSES),
  error: z.string().optional(),
  /** Pages, rows or documents read at the last refresh. */
  items: z.number().int(),
  chunks: z.number().int(),
  refreshedAt: z.string().nullable(),
  createdAt: z.string(),
});
export const knowledgeSourceList = z.array(knowledgeSource);
export type KnowledgeSource = z.infer<typeof knowledgeSource>;

export const knowledgeSourceParams = z.object({ id: idParam, sourceId: idParam });
export const createdId = z.object({ id: z.number().int() });

export const knowledgeSearchBody = z.object({
  query: z.string().trim().min(1).max(2000),
  limit: z.number().int().min(1).max(50).optional(),
});
export const knowledgePassage = z.object({
  text: z.string(),
  score: z.number(),
  sourceId: z.number().int(),
  title: z.string().optional(),
  url: z.string().optional(),
});
export type KnowledgePassage = z.infer<typeof knowledgePassage>;
export const knowledgeSearchResult = z.object({ results: z.array(knowledgePassage) });

/** Issue 21 item 5: the test box asks the agent of a chosen type. */
export const knowledgeAskBody = z.object({
  query: z.string().trim().min(1).max(2000),
  conversationTypeId: z.number().int().positive(),
});
export const knowledgeAskResult = z.object({
  reply: z.string(),
  needsHuman: z.boolean(),
  unknown: z.boolean(),
  demo: z.boolean(),
  passages: z.array(knowledgePassage),
});
export type KnowledgeAskResult = z.infer<typeof knowledgeAskResult>;

/** Issue 21 item 4: questions the agent could not answer from the knowledge, grouped. */
export const knowledgeQuestionGroup = z.object({
  key: z.string(),
  question: z.string(),
  count: z.number().int(),
  lastAskedAt: z.string(),
  conversations: z.array(z.object({ uuid: z.string(), typeTitle: z.string().nullable() })),
  conversationTypeIds: z.array(z.number().int()),
});
export type KnowledgeQuestionGroup = z.infer<typeof knowledgeQuestionGroup>;
export const knowledgeQuestionList = z.object({ groups: z.array(knowledgeQuestionGroup) });
export const knowledgeQuestionKeyBody = z.object({ key: z.string().min(1).max(2000) });
/** "Add as FAQ": the group's questions are answered by a new FAQ entry in the collection. */
export const knowledgeQuestionFaqBody = z.object({
  key: z.string().min(1).max(2000),
  collectionId: z.number().int().positive(),
  question: z.string().trim().min(1).max(2000),
  answer: z.string().trim().min(1).max(20_000),
});
