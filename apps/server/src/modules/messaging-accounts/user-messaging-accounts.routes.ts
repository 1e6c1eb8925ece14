import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import { permissionCreateBody, permissionView } from '@sales-agent/shared/schemas/messaging-account';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { grantPermission, listPermissions, revokePermission } from './user-messaging-accounts.service.ts';

/** Spec §7.4 permissions: which user may see which messaging account. ADMIN only (the /api/admin prefix). */
export async function userMessagingAccountsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['user-messaging-accounts'];

  r.get(
    '/api/admin/user-messaging-accounts/list',
    { schema: { tags, response: { 200: z.array(permissionView) } } },
    async () => listPermissions(ctx),
  );

  r.post(
    '/api/admin/user-messaging-accounts/create',
    { schema: { tags, body: permissionCreateBody, response: { 201: messageBody.extend({ id: z.number() }), 404: errorBody, 409: errorBody } } },
    async (request, reply) => {
      const grant = await grantPermission(ctx, request.body);
      return reply.status(201).send({ message: `${request.body.userEmail} now has access to ${grant.pageName}.`, id: grant.id });
    },
  );

  r.delete(
    '/api/admin/user-messaging-accounts/:id',
    { schema: { tags, params: idParams, response: { 200: messageBody, 404: errorBody } } },
    async (request) => {
      await revokePermission(ctx, request.params.id);
      return { message: 'User Messaging Account deleted successfully' };
    },
  );
}
