import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import {
  clearOptOutBody,
  CONSENT_IMPORT_FIELD,
  CONSENT_IMPORT_MAX_BYTES,
  consentAuditList,
  consentImportResult,
  consentAuditQuery,
  consentBody,
  doNotContactView,
  optOutAuditList,
  optOutAuditQuery,
} from '@sales-agent/shared/schemas/compliance';
import { conversationIdParams } from '@sales-agent/shared/schemas/conversation';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { uploadedFile } from '../../lib/uploaded-file.ts';
import { loadConversationToChange } from '../conversations/conversation-policy.ts';
import { importConsents } from './consent-import.ts';
import { clearProspectOptOut, listConsents, listOptOuts, recordProspectConsent } from './opt-out.service.ts';

const tags = ['compliance'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody };

/** A person clears a prospect's opt-out (issue 23): only with a note, kept in the audit trail. */
export async function optOutRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // Only the opt-in import reads multipart; busboy's limit is one byte above ours so a larger file is detected.
  await app.register(multipart, { limits: { fileSize: CONSENT_IMPORT_MAX_BYTES + 1, files: 1, fields: 5 } });
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

  // ADMIN only: WhatsApp opt-ins gathered elsewhere, from a CSV (`phone`, optional `note`) in the field "file".
  r.post(
    '/api/admin/compliance/consents/import',
    { schema: { tags, consumes: ['multipart/form-data'], response: { 201: consentImportResult, 413: errorBody, ...errors } } },
    async (request, reply) => {
      const file = await uploadedFile(request, reply, { field: CONSENT_IMPORT_FIELD, maxBytes: CONSENT_IMPORT_MAX_BYTES });
      const result = await importConsents(ctx, request.actor!.id, { name: file.fileName, text: file.bytes.toString('utf8') });
      return reply.status(201).send(result);
    },
  );

  // ADMIN only (plugins/auth.ts guards /api/admin/**): every opt-out, its end, who ended it and the note.
  r.get(
    '/api/admin/compliance/opt-outs',
    { schema: { tags, querystring: optOutAuditQuery, response: { 200: optOutAuditList, ...errors } } },
    async (request) => listOptOuts(ctx, request.query),
  );
}
