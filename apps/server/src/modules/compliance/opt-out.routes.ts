import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import {
  clearOptOutBody,
  consentAuditList,
  consentAuditQuery,
  consentBody,
  doNotContactView,
  optOutAuditList,
  optOutAuditQuery,
} from '@sales-agent/shared/schemas/compliance';
import { conversationIdParams } from '@sales-agent/shared/schemas/conversation';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { loadConversationToChange } from '../conversations/conversation-policy.ts';
import { clearProspectOptOut, listConsents, listOptOuts, recordProspectConsent } from './opt-out.service.ts';

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

  // A person records a consent (a WhatsApp opt-in given elsewhere) or its withdrawal, with a note.
  r.post(
    '/api/conversation/:id/consent',
    { schema: { tags, params: conversationIdParams, body: consentBody, response: { 200: z.object({ message: z.string() }), ...errors } } },
    async (request) => {
      const conversation = await loadConversationToChange(ctx, request.actor, { id: request.params.id });
      await recordProspectConsent(ctx, conversation, request.actor!.id, request.body);
      return { message: request.body.granted ? 'Opt-in recorded' : 'Opt-in withdrawn' };
    },
  );

  // ADMIN only: every consent change (opt-ins and withdrawals) with who, when and where from.
  r.get(
    '/api/admin/compliance/consents',
    { schema: { tags, querystring: consentAuditQuery, response: { 200: consentAuditList, ...errors } } },
    async (request) => listConsents(ctx, request.query),
  );

  // ADMIN only (plugins/auth.ts guards /api/admin/**): every opt-out, its end, who ended it and the note.
  r.get(
    '/api/admin/compliance/opt-outs',
    { schema: { tags, querystring: optOutAuditQuery, response: { 200: optOutAuditList, ...errors } } },
    async (request) => listOptOuts(ctx, request.query),
  );
}
