import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import { unansweredList, unansweredStatusBody } from '@sales-agent/shared/schemas/unanswered';
import type { AppContext } from '../../context.ts';
import { deleteUnansweredConversation, listUnansweredConversations, setUnansweredStatus } from './unanswered.service.ts';

const tags = ['unanswered-conversations'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/** Spec §7.5 unanswered-conversations monitor; `/api/admin/**` is ADMIN-only (plugins/auth.ts). */
export async function unansweredRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/admin/unanswered-conversations/listt',
    { schema: { tags, response: { 200: unansweredList, ...errors } } },
    async () => listUnansweredConversations(ctx),
  );

  r.delete(
    '/api/admin/unanswered-conversations/:id',
    { schema: { tags, params: idParams, response: { 200: messageBody, ...errors } } },
    async (request) => {
      await deleteUnansweredConversation(ctx, request.params.id);
      return { message: 'Unanswered conversation deleted successfully' };
    },
  );

  r.patch(
    '/api/admin/unanswered-conversations/:id',
    { schema: { tags, params: idParams, body: unansweredStatusBody, response: { 200: messageBody, ...errors } } },
    async (request) => {
      await setUnansweredStatus(ctx, request.params.id, request.body.status);
      return { message: 'Unanswered conversation status updated successfully' };
    },
  );
}
