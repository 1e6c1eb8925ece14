import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import {
  CONFIG_TEXT_MAX,
  conversationPhaseList,
  conversationPhaseSaveBody,
  conversationPhaseSaved,
  conversationTypeDetail,
  conversationTypeList,
  conversationTypeSaveBody,
  conversationTypeSaved,
  typeIdParams,
} from '@sales-agent/shared/schemas/conversation-type';
import { assertCollectionsExist, setTypeCollections, typeCollectionIds } from '../../knowledge/type-collections.ts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { requireAdmin } from '../../plugins/auth.ts';
import {
  deleteConversationPhase,
  listConversationPhases,
  saveConversationPhase,
} from './conversation-phases.service.ts';
import {
  deleteConversationType,
  duplicateConversationType,
  getConversationType,
  listConversationTypes,
  saveConversationType,
  saveConversationTypeConfig,
} from './conversation-types.service.ts';

const tags = ['conversation-types'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/** Spec §7.3: conversation types and their phases. `/api/admin/**` is ADMIN-only globally (plugins/auth.ts). */
export async function conversationTypesRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  // Public: anonymous visitors start conversations from this list, so prompts are only for ADMIN.
  r.get('/api/conversation-type/listt', { schema: { tags, response: { 200: conversationTypeList } } }, async (request) =>
    listConversationTypes(ctx, { admin: request.actor?.role === 'ADMIN', visitor: !request.actor }),
  );

  r.get(
    '/api/conversation-type/:id',
    {
      // Checked before the params so an anonymous caller learns nothing, not even "bad id".
      onRequest: async (request) => void requireAdmin(request),
      schema: { tags, params: idParams, response: { 200: conversationTypeDetail, ...errors } },
    },
    async (request) => ({
      ...(await getConversationType(ctx, request.params.id)),
      knowledgeCollectionIds: await typeCollectionIds(ctx.db, request.params.id),
    }),
  );

  r.post(
    '/api/admin/conversation-type/create-edit',
    { schema: { tags, body: conversationTypeSaveBody, response: { 200: conversationTypeSaved, ...errors } } },
    async (request) => {
      const collections = request.body.knowledgeCollectionIds;
      if (collections) await assertCollectionsExist(ctx.db, collections);
      const saved = await saveConversationType(ctx, request.body);
      if (collections) await setTypeCollections(ctx.db, saved.id, collections);
      return { conversationType: saved };
    },
  );

  r.post(
    '/api/admin/conversation-type/:id/delete',
    { schema: { tags, params: idParams, response: { 200: messageBody, ...errors } } },
    async (request) => {
      await deleteConversationType(ctx, request.params.id);
      return { message: 'Conversation type deleted' };
    },
  );

  r.post(
    '/api/admin/conversation-type/:id/duplicate',
    { schema: { tags, params: idParams, response: { 200: conversationTypeSaved, ...errors } } },
    async (request) => ({ conversationType: await duplicateConversationType(ctx, request.params.id) }),
  );

  // The config editor posts the raw JSON text (spec §7.3), as application/json or text/plain. This child
  // context reads both as a plain string so the exact text, formatting included, can be stored.
  await app.register(async (raw) => {
    raw.removeContentTypeParser(['application/json', 'text/plain']);
    raw.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, (_req, body, done) =>
      done(null, body),
    );
    raw.withTypeProvider<ZodTypeProvider>().post(
      '/api/admin/conversation-type/:id/config',
      { schema: { tags, params: idParams, response: { 200: messageBody, ...errors } } },
      async (request) => {
        const text = request.body;
        if (typeof text !== 'string' || !text.trim()) {
          throw badRequest('The configuration is empty; send the JSON text as the request body.', 'INVALID_JSON');
        }
        if (text.length > CONFIG_TEXT_MAX) throw badRequest('The configuration is too long.', 'INVALID_CONFIG');
        await saveConversationTypeConfig(ctx, request.params.id, text);
        return { message: 'Configuration saved successfully.' };
      },
    );
  });

  r.get(
    '/api/admin/conversation-phase/:typeId/list',
    { schema: { tags, params: typeIdParams, response: { 200: conversationPhaseList, ...errors } } },
    async (request) => listConversationPhases(ctx, request.params.typeId),
  );

  r.post(
    '/api/admin/conversation-phase/create-edit',
    { schema: { tags, body: conversationPhaseSaveBody, response: { 200: conversationPhaseSaved, ...errors } } },
    async (request) => ({ conversationPhase: await saveConversationPhase(ctx, request.body) }),
  );

  r.delete(
    '/api/admin/conversation-phase/:id',
    { schema: { tags, params: idParams, response: { 200: messageBody, ...errors } } },
    async (request) => {
      await deleteConversationPhase(ctx, request.params.id);
      return { message: 'Phase deleted successfully' };
    },
  );
}
