import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, idParams } from '@sales-agent/shared/schemas/common';
import { inviteUserBody, inviteUserResponse, patchUserBody, teamUser } from '@sales-agent/shared/schemas/user';
import type { AppContext } from '../../context.ts';
import { requireAdmin } from '../../plugins/auth.ts';
import { inviteUser, listTeam, patchUser } from './team.service.ts';

/** Team management (issue 24): ADMIN only (plugins/auth.ts guards /api/admin/**). */
export async function teamRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['users'];
  const errors = { 400: errorBody, 401: errorBody, 403: errorBody };

  r.get('/api/admin/users', { schema: { tags, summary: 'The team (ADMIN)', response: { 200: z.array(teamUser), ...errors } } }, async () => listTeam(ctx));

  r.post(
    '/api/admin/users/invite',
    {
      schema: {
        tags,
        summary: 'Invite a teammate by email (ADMIN): a one-time link to set a password, mailed when SMTP is set',
        body: inviteUserBody,
        response: { 201: inviteUserResponse, 409: errorBody, ...errors },
      },
    },
    async (request, reply) => reply.status(201).send(await inviteUser(ctx, requireAdmin(request), request.body.email, request.body.role)),
  );

  r.patch(
    '/api/admin/users/:id',
    {
      schema: {
        tags,
        summary: 'Change a role or (de)activate a user (ADMIN); deactivating ends their sessions at once',
        params: idParams,
        body: patchUserBody,
        response: { 200: teamUser, 404: errorBody, 409: errorBody, ...errors },
      },
    },
    async (request) => patchUser(ctx, requireAdmin(request), request.params.id, request.body),
  );
}
