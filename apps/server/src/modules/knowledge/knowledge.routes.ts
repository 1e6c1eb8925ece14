import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import {
  createdId,
  KNOWLEDGE_DOCUMENT_MAX_BYTES,
  KNOWLEDGE_UPLOAD_FIELD,
  knowledgeCollectionBody,
  knowledgePassage,
  knowledgeCollectionList,
  knowledgeSearchBody,
  knowledgeSearchResult,
  knowledgeSourceBody,
  knowledgeSourceList,
  knowledgeSourceParams,
  knowledgeAskBody,
  knowledgeAskResult,
  knowledgeQuestionFaqBody,
  knowledgeQuestionKeyBody,
  knowledgeQuestionList,
} from '@sales-agent/shared/schemas/knowledge';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { uploadedFile } from '../../lib/uploaded-file.ts';
import {
  addDocument,
  answerQuestionGroup,
  askCollection,
  dismissQuestionGroup,
  listUnansweredQuestions,
  addJsonSource,
  conversationPassages,
  createCollection,
  deleteCollection,
  deleteSource,
  importFaqCsv,
  listCollections,
  listSources,
  refreshSource,
  searchCollection,
} from './knowledge.service.ts';

const tags = ['knowledge'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/** Issue 21 knowledge base admin API; `/api/admin/**` is ADMIN-only (plugins/auth.ts). */
export async function knowledgeRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // Only the source route reads multipart (a document upload); busboy's limit is one byte above ours so an
  // oversized file is detected rather than silently cut.
  await app.register(multipart, { limits: { fileSize: KNOWLEDGE_DOCUMENT_MAX_BYTES + 1, files: 1, fields: 5 } });
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/api/admin/knowledge', { schema: { tags, response: { 200: knowledgeCollectionList, ...errors } } }, () =>
    listCollections(ctx),
  );

  r.post(
    '/api/admin/knowledge',
    { schema: { tags, body: knowledgeCollectionBody, response: { 201: createdId, ...errors } } },
    async (request, reply) => reply.status(201).send(await createCollection(ctx, request.body.name)),
  );

  r.delete(
    '/api/admin/knowledge/:id',
    { schema: { tags, params: idParams, response: { 200: messageBody, ...errors } } },
    async (request) => {
      await deleteCollection(ctx, request.params.id);
      return { message: 'Knowledge collection deleted.' };
    },
  );

  r.get(
    '/api/admin/knowledge/:id/sources',
    { schema: { tags, params: idParams, response: { 200: knowledgeSourceList, ...errors } } },
    (request) => listSources(ctx, request.params.id),
  );

  // JSON ({type:"faq"|"website", …}) or multipart with the document in the field "file"; the body is checked
  // here because one route takes both encodings.
  r.post(
    '/api/admin/knowledge/:id/sources',
    {
      schema: {
        tags,
        params: idParams,
        consumes: ['application/json', 'multipart/form-data'],
        description: `JSON {type:"faq", question, answer} or {type:"website", url, refresh?}; or multipart with the document in the field "${KNOWLEDGE_UPLOAD_FIELD}" (PDF, DOCX, Markdown, text, HTML, CSV).`,
        response: { 201: createdId, 413: errorBody, ...errors },
      },
    },
    async (request, reply) => {
      const collectionId = request.params.id;
      if (request.isMultipart()) {
        return reply.status(201).send(await addDocument(ctx, collectionId, await uploadedDocument(request, reply)));
      }
      const parsed = knowledgeSourceBody.safeParse(request.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw badRequest(`${issue.path.join('.') || 'body'}: ${issue.message}`, 'VALIDATION_ERROR');
      }
      return reply.status(201).send(await addJsonSource(ctx, collectionId, parsed.data));
    },
  );

  // FAQ entries from a CSV with the columns question and answer, in the multipart field "file".
  r.post(
    '/api/admin/knowledge/:id/faq-import',
    {
      schema: {
        tags,
        params: idParams,
        consumes: ['multipart/form-data'],
        response: { 201: z.object({ created: z.number().int(), skipped: z.number().int() }), 413: errorBody, ...errors },
      },
    },
    async (request, reply) => {
      const file = await uploadedDocument(request, reply);
      return reply.status(201).send(await importFaqCsv(ctx, request.params.id, file.bytes));
    },
  );

  r.post(
    '/api/admin/knowledge/:id/sources/:sourceId/refresh',
    { schema: { tags, params: knowledgeSourceParams, response: { 200: messageBody, ...errors } } },
    async (request) => {
      await refreshSource(ctx, request.params.id, request.params.sourceId);
      return { message: 'Refresh queued.' };
    },
  );

  r.delete(
    '/api/admin/knowledge/:id/sources/:sourceId',
    { schema: { tags, params: knowledgeSourceParams, response: { 200: messageBody, ...errors } } },
    async (request) => {
      await deleteSource(ctx, request.params.id, request.params.sourceId);
      return { message: 'Knowledge source deleted.' };
    },
  );

  // Which passages each agent message of a conversation was written from (issue 21), by message id.
  r.get(
    '/api/admin/knowledge/conversations/:uuid/passages',
    {
      schema: {
        tags,
        params: z.object({ uuid: z.uuid() }),
        response: { 200: z.object({ passages: z.record(z.string(), z.array(knowledgePassage)) }), ...errors },
      },
    },
    async (request) => ({ passages: await conversationPassages(ctx, request.params.uuid) }),
  );

  // The test box's agent answer: what the chosen type's agent would reply from this collection (issue 21).
  r.post(
    '/api/admin/knowledge/:id/ask',
    { schema: { tags, params: idParams, body: knowledgeAskBody, response: { 200: knowledgeAskResult, 502: errorBody, ...errors } } },
    (request) => askCollection(ctx, request.params.id, request.body.conversationTypeId, request.body.query),
  );

  // Questions the agent could not answer from the knowledge, grouped, most asked first (issue 21 item 4).
  r.get('/api/admin/knowledge/questions', { schema: { tags, response: { 200: knowledgeQuestionList, ...errors } } }, () =>
    listUnansweredQuestions(ctx),
  );

  r.post(
    '/api/admin/knowledge/questions/faq',
    { schema: { tags, body: knowledgeQuestionFaqBody, response: { 201: z.object({ id: z.number().int(), resolved: z.number().int() }), ...errors } } },
    async (request, reply) => reply.status(201).send(await answerQuestionGroup(ctx, request.body)),
  );

  r.post(
    '/api/admin/knowledge/questions/dismiss',
    { schema: { tags, body: knowledgeQuestionKeyBody, response: { 200: messageBody, ...errors } } },
    async (request) => {
      const resolved = await dismissQuestionGroup(ctx, request.body.key);
      return { message: `${resolved} ${resolved === 1 ? 'question' : 'questions'} dismissed.` };
    },
  );

  r.post(
    '/api/admin/knowledge/:id/search',
    { schema: { tags, params: idParams, body: knowledgeSearchBody, response: { 200: knowledgeSearchResult, ...errors } } },
    (request) => searchCollection(ctx, request.params.id, request.body.query, request.body.limit),
  );
}

/** The uploaded document or CSV (documents are at most 20 MB). */
const uploadedDocument = (request: FastifyRequest, reply: FastifyReply) =>
  uploadedFile(request, reply, { field: KNOWLEDGE_UPLOAD_FIELD, maxBytes: KNOWLEDGE_DOCUMENT_MAX_BYTES });
