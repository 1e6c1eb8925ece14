import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { contactMergeBody, contactPatch, contactSearchQuery, contactSummary } from '@sales-agent/shared/schemas/contact';
import { errorBody, idParams } from '@sales-agent/shared/schemas/common';
import type { AppContext } from '../../context.ts';
import { requireUser } from '../../plugins/auth.ts';
import { searchContacts } from './contact-search.ts';
import { mergeContacts, updateContact } from './contacts.service.ts';

/**
 * Contacts (issue 24, docs/workspace.md "Contacts"): any signed-in teammate finds, edits and merges the people
 * they may see; a NORMAL user only contacts whose every handle is on an account granted to them (403).
 */
export async function contactsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['conversations'];
  const errors = { 400: errorBody, 401: errorBody };

  r.get(
    '/api/contacts',
    {
      schema: {
        tags,
        summary: 'Find contacts by name, phone number, handle or email (those the viewer may see)',
        querystring: contactSearchQuery,
        response: { 200: z.array(contactSummary), ...errors },
      },
    },
    async (request) => searchContacts(ctx, requireUser(request), request.query.q),
  );

  r.patch(
    '/api/contacts/:id',
    {
      schema: {
        tags,
        summary: "Change a contact's name, email or phone number",
        params: idParams,
        body: contactPatch,
        response: { 200: contactSummary, 403: errorBody, 404: errorBody, ...errors },
      },
    },
    async (request) => updateContact(ctx, requireUser(request), request.params.id, request.body),
  );

  r.post(
    '/api/contacts/:id/merge',
    {
      schema: {
        tags,
        summary: 'Merge another contact into this one (its handles and conversations move here)',
        params: idParams,
        body: contactMergeBody,
        response: { 200: contactSummary, 403: errorBody, 404: errorBody, ...errors },
      },
    },
    async (request) => mergeContacts(ctx, requireUser(request), request.params.id, request.body.otherContactId),
  );
}
