import { queryOptions } from '@tanstack/react-query';
import type {
  KnowledgeAskResult,
  KnowledgeCollection,
  KnowledgePassage,
  KnowledgeQuestionGroup,
  KnowledgeSource,
  KnowledgeSourceBody,
} from '@sales-agent/shared/schemas/knowledge';
import { KNOWLEDGE_UPLOAD_FIELD } from '@sales-agent/shared/schemas/knowledge';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

/** Query keys of the knowledge base screens. */
export const knowledgeKeys = {
  collections: () => ['knowledge', 'collections'] as const,
  sources: (id: number) => ['knowledge', 'collections', id, 'sources'] as const,
  questions: () => ['knowledge', 'questions'] as const,
};

const base = '/api/admin/knowledge';

export const collectionsQuery = () =>
  queryOptions({ queryKey: knowledgeKeys.collections(), queryFn: () => api.get<KnowledgeCollection[]>(base) });

/** Polled while a source is queued or processing, so the status moves on screen without a reload. */
export const sourcesQuery = (id: number) =>
  queryOptions({
    queryKey: knowledgeKeys.sources(id),
    queryFn: () => api.get<KnowledgeSource[]>(`${base}/${id}/sources`),
    refetchInterval: (query) =>
      query.state.data?.some((s) => s.status === 'queued' || s.status === 'processing') ? 1000 : false,
  });

export const useCreateCollection = () =>
  useWrite({
    write: (name: string) => api.post<{ id: number }>(base, { name }),
    refreshes: () => [knowledgeKeys.collections()],
    notice: 'Collection created.',
  });

export const useAddSource = (collectionId: number) =>
  useWrite({
    write: (body: KnowledgeSourceBody) => api.post<{ id: number }>(`${base}/${collectionId}/sources`, body),
    refreshes: () => [knowledgeKeys.sources(collectionId), knowledgeKeys.collections()],
    notice: 'Source added; it is being read.',
  });

export const useUploadDocument = (collectionId: number) =>
  useWrite({
    write: (file: File) => {
      const form = new FormData();
      form.append(KNOWLEDGE_UPLOAD_FIELD, file);
      return api.post<{ id: number }>(`${base}/${collectionId}/sources`, form);
    },
    refreshes: () => [knowledgeKeys.sources(collectionId), knowledgeKeys.collections()],
    notice: 'Document uploaded; it is being read.',
  });

export const useRefreshSource = (collectionId: number) =>
  useWrite({
    write: (sourceId: number) => api.post<{ message: string }>(`${base}/${collectionId}/sources/${sourceId}/refresh`),
    refreshes: () => [knowledgeKeys.sources(collectionId)],
  });

export const useDeleteSource = (collectionId: number) =>
  useWrite({
    write: (sourceId: number) => api.delete<{ message: string }>(`${base}/${collectionId}/sources/${sourceId}`),
    refreshes: () => [knowledgeKeys.sources(collectionId), knowledgeKeys.collections()],
  });

/** The test box: retrieval only, nothing is stored. */
export const useSearchKnowledge = (collectionId: number) =>
  useWrite({
    write: (query: string) => api.post<{ results: KnowledgePassage[] }>(`${base}/${collectionId}/search`, { query }),
    refreshes: () => [],
    notice: '',
  });

/** messageId → passages the agent's draft carried (ADMIN); refetched when the thread grows. */
export const messagePassagesQuery = (uuid: string, messageCount: number) =>
  queryOptions({
    queryKey: ['knowledge', 'passages', uuid, messageCount] as const,
    queryFn: () => api.get<{ passages: Record<string, KnowledgePassage[]> }>(`${base}/conversations/${uuid}/passages`),
    staleTime: 30_000,
  });

/** FAQ entries from a CSV with the columns question and answer. */
export const useImportFaqCsv = (collectionId: number) =>
  useWrite({
    write: (file: File) => {
      const form = new FormData();
      form.append(KNOWLEDGE_UPLOAD_FIELD, file);
      return api.post<{ created: number; skipped: number }>(`${base}/${collectionId}/faq-import`, form);
    },
    refreshes: () => [knowledgeKeys.sources(collectionId), knowledgeKeys.collections()],
  });

/** The test box's agent answer: what the chosen type's agent would reply (nothing is stored). */
export const useAskKnowledge = (collectionId: number) =>
  useWrite({
    write: (body: { query: string; conversationTypeId: number }) => api.post<KnowledgeAskResult>(`${base}/${collectionId}/ask`, body),
    refreshes: () => [],
    notice: '',
  });

/** Questions the agent could not answer from the knowledge, grouped, most asked first. */
export const questionsQuery = () =>
  queryOptions({
    queryKey: knowledgeKeys.questions(),
    queryFn: () => api.get<{ groups: KnowledgeQuestionGroup[] }>(`${base}/questions`),
  });

/** "Add as FAQ": one FAQ entry answers the group's questions. */
export const useAnswerQuestion = () =>
  useWrite({
    write: (body: { key: string; collectionId: number; question: string; answer: string }) =>
      api.post<{ id: number; resolved: number }>(`${base}/questions/faq`, body),
    refreshes: (body) => [knowledgeKeys.questions(), knowledgeKeys.sources(body.collectionId), knowledgeKeys.collections()],
    notice: 'FAQ entry added; the agent answers from it once it is read.',
  });

export const useDismissQuestion = () =>
  useWrite({
    write: (key: string) => api.post<{ message: string }>(`${base}/questions/dismiss`, { key }),
    refreshes: () => [knowledgeKeys.questions()],
  });
