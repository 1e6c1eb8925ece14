import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { cannedReply, cannedReplyBody, cannedReplyPatch } from '@sales-agent/shared/schemas/canned-reply';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import type { AppContext } from '../../context.ts';
import { requireAdmin, requireUser } from '../../plugins/auth.ts';
import { changeCannedReply, createCannedReply, deleteCannedReply, listCannedReplies } from './canned-replies.service.ts';

/**
 * Canned replies (issue 24): every signed-in teammate reads the list (the composer's "/" menu); only an ADMIN
 * adds, changes or deletes one (403 FORBIDDEN for a team member).
 */
export async function cannedRepliesRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['conversations'];
  const errors = { 400: errorBody, 401: errorBody, 403: errorBody };

  r.get(
    '/api/canned-replies',
    { schema: { tags, summary: "The team's canned replies, by shortcut (any signed-in user)", response: { 200: z.array(cannedReply), ...errors } } },
    async (request) => {
      requireUser(request);
      return listCannedReplies(ctx);
    },
  );

  r.post(
    '/api/canned-replies',
    { schema: { tags, summary: 'Add a canned reply (ADMIN)', body: cannedReplyBody, response: { 201: cannedReply, 409: errorBody, ...errors } } },
    async (request, reply) => reply.status(201).send(await createCannedReply(ctx, requireAdmin(request), request.body)),
  );

  r.patch(
    '/api/canned-replies/:id',
    {
      schema: {
        tags,
        summary: 'Change a canned reply (ADMIN)',
        params: idParams,
        body: cannedReplyPatch,
        response: { 200: cannedReply, 404: errorBody, 409: errorBody, ...errors },
      },
    },
    async (request) => {
      requireAdmin(request);
      return changeCannedReply(ctx, request.params.id, request.body);
    },
  );

  r.delete(
    '/api/canned-replies/:id',
    { schema: { tags, summary: 'Delete a canned reply (ADMIN)', params: idParams, response: { 200: messageBody, 404: errorBody, ...errors } } },
    async (request) => {
      requireAdmin(request);
      await deleteCannedReply(ctx, request.params.id);
      return { message: 'Canned reply deleted' };
    },
  );
}
