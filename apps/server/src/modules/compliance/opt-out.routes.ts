import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import { clearOptOutBody, doNotContactView, optOutAuditList, optOutAuditQuery } from '@sales-agent/shared/schemas/compliance';
import { conversationIdParams } from '@sales-agent/shared/schemas/conversation';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { loadConversationToChange } from '../conversations/conversation-policy.ts';
import { clearProspectOptOut, listOptOuts } from './opt-out.service.ts';

const tags = ['compliance'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody };

/** A person clears a prospect's opt-out (issue 23): only with a note, kept in the audit trail. */
export async function optOutRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/api/conversation/:id/do-not-contact/clear',
    { schema: { tags, params: conversationIdParams, body: clearOptOutBody, response: { 200: z.object({ message: z.string(), doNotContact: doNotContactView }), ...errors } } },
    async (request) => {
      const conversation = await loadConversationToChange(ctx, request.actor, { id: request.params.id });
      return { message: 'Opt-out cleared', doNotContact: await clearProspectOptOut(ctx, conversation, request.actor!.id, request.body.note) };
    },
  );

  // ADMIN only (plugins/auth.ts guards /api/admin/**): every opt-out, its end, who ended it and the note.
  r.get(
    '/api/admin/compliance/opt-outs',
    { schema: { tags, querystring: optOutAuditQuery, response: { 200: optOutAuditList, ...errors } } },
    async (request) => listOptOuts(ctx, request.query),
  );
}
