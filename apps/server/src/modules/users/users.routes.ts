import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import {
  deleteUserBody,
  emailParams,
  loginBody,
  session,
  setPasswordBody,
} from '@sales-agent/shared/schemas/user';
import { userMessagingAccountView } from '@sales-agent/shared/schemas/messaging-account';
import { registerWithInvitationBody } from '@sales-agent/shared/schemas/invitation';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { clearSessionCookie, requireUser, SESSION_COOKIE, setSessionCookie } from '../../plugins/auth.ts';
import { admitRegistration } from './registration.ts';
import { createSession, deleteSession } from './session.service.ts';
import {
  authenticate,
  deleteUser,
  getProfile,
  listUserMessagingAccounts,
  registerUser,
  setFirstPassword,
} from './users.service.ts';

const tags = ['users'];

export async function userRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const authLimit = { rateLimit: { max: ctx.config.AUTH_RATE_LIMIT, timeWindow: '1 minute' } };

  r.post(
    '/api/user/login',
    { config: authLimit, schema: { tags, body: loginBody, response: { 200: session, 401: errorBody } } },
    async (request, reply) => {
      const actor = await authenticate(ctx, request.body.email, request.body.password);
      setSessionCookie(reply, ctx, await createSession(ctx, actor.id));
      return { email: actor.email, role: actor.role };
    },
  );

  r.post(
    '/api/user/register',
    { config: authLimit, schema: { tags, body: registerWithInvitationBody, response: { 201: session, 403: errorBody, 409: errorBody } } },
    async (request, reply) => {
      // REGISTRATION=invite|closed: 403 with a sentence unless an invitation for this email lets it through.
      const admitted = await admitRegistration(ctx, request.body.email, request.body.invitation);
      const actor = await registerUser(ctx, request.body.email, request.body.password).catch(async (err: unknown) => {
        await admitted.release();
        throw err;
      });
      setSessionCookie(reply, ctx, await createSession(ctx, actor.id));
      return reply.status(201).send({ email: actor.email, role: actor.role });
    },
  );

  r.post(
    '/api/user/set-password',
    {
      config: authLimit,
      schema: { tags, body: setPasswordBody, response: { 200: session, 202: z.object({ message: z.string() }) } },
    },
    async (request, reply) => {
      const result = await setFirstPassword(ctx, request.body.email, request.body.password);
      if (result.status === 'provisioning') {
        return reply.status(202).send({ message: 'Your account is still being set up. Please wait.' });
      }
      setSessionCookie(reply, ctx, await createSession(ctx, result.actor.id));
      return { email: result.actor.email, role: result.actor.role };
    },
  );

  r.post(
    '/api/user/get-session',
    { schema: { tags, response: { 200: session, 401: errorBody } } },
    async (request) => {
      const actor = requireUser(request);
      return { email: actor.email, role: actor.role };
    },
  );

  r.post('/api/user/logout', { schema: { tags } }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await deleteSession(ctx, token);
    clearSessionCookie(reply);
    return { message: 'Logged out' };
  });

  r.delete('/api/user/delete', { schema: { tags, body: deleteUserBody } }, async (request, reply) => {
    const actor = requireUser(request);
    await deleteUser(ctx, actor, request.body.email);
    if (actor.email === request.body.email) clearSessionCookie(reply);
    return { message: 'User deleted' };
  });

  r.get('/api/user/:email', { schema: { tags, params: emailParams } }, async (request) => {
    return getProfile(ctx, requireUser(request), request.params.email);
  });

  r.get(
    '/api/user/:email/messaging-accounts',
    {
      schema: {
        tags,
        params: emailParams,
        response: { 200: z.object({ messagingAccounts: z.array(userMessagingAccountView) }), 401: errorBody, 403: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      return { messagingAccounts: await listUserMessagingAccounts(ctx, requireUser(request), request.params.email) };
    },
  );
}
