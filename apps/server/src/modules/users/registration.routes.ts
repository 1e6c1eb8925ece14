import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import { invitationCreateBody, invitationCreated, invitationView, registrationInfo } from '@sales-agent/shared/schemas/invitation';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { requireAdmin } from '../../plugins/auth.ts';
import { createInvitation, listInvitations, registrationInfo as info, revokeInvitation } from './registration.ts';

/** REGISTRATION's public answer for the register page, and an ADMIN's invitations (the /api/admin prefix). */
export async function registrationRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['invitations'];

  r.get('/api/user/registration', { schema: { tags: ['users'], summary: 'Who may register here (REGISTRATION), with the sentence to show', response: { 200: registrationInfo } } }, async () => info(ctx.config));

  r.get('/api/admin/invitations/list', { schema: { tags, summary: 'Invitations not used yet (ADMIN)', response: { 200: z.array(invitationView) } } }, async () => listInvitations(ctx));

  r.post(
    '/api/admin/invitations/create',
    { schema: { tags, summary: 'Invite an email to register (ADMIN); answers the link once', body: invitationCreateBody, response: { 201: invitationCreated, 409: errorBody } } },
    async (request, reply) => reply.status(201).send(await createInvitation(ctx, requireAdmin(request), request.body.email)),
  );

  r.delete(
    '/api/admin/invitations/:id',
    { schema: { tags, summary: 'Revoke an invitation (ADMIN)', params: idParams, response: { 200: messageBody, 404: errorBody } } },
    async (request) => {
      await revokeInvitation(ctx, request.params.id);
      return { message: 'Invitation revoked.' };
    },
  );
}
