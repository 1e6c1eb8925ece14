import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import {
  deleteUserBody,
  emailParams,
  loginBody,
  registerBody,
  changePasswordBody,
  forgotPasswordBody,
  resetLink,
  session,
  setPasswordBody,
  setPasswordQuery,
} from '@sales-agent/shared/schemas/user';
import { userMessagingAccountView } from '@sales-agent/shared/schemas/messaging-account';
import { registerWithInvitationBody } from '@sales-agent/shared/schemas/invitation';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { clearSessionCookie, requireAdmin, requireUser, SESSION_COOKIE, signIn } from '../../plugins/auth.ts';
import { admitRegistration } from './registration.ts';
import { deleteSession, endUserSessions } from './session.service.ts';
import {
  adminResetLink,
  authenticate,
  changePassword,
  deleteUser,
  getProfile,
  listUserMessagingAccounts,
  registerUser,
  requestPasswordReset,
  setPassword,
} from './users.service.ts';

const tags = ['users'];

export async function userRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const authLimit = { rateLimit: { max: ctx.config.AUTH_RATE_LIMIT, timeWindow: '1 minute' } };

  r.post(
    '/api/user/login',
    { config: authLimit, schema: { tags, body: loginBody, response: { 200: session, 401: errorBody } } },
    async (request, reply) => {
      return signIn(reply, ctx, await authenticate(ctx, request.body.email, request.body.password));
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
      return reply.status(201).send(await signIn(reply, ctx, actor));
    },
  );

  r.post(
    '/api/user/set-password',
    {
      config: authLimit,
      schema: {
        tags,
        description:
          'Needs the one-time `token` of a set-password link (body, or the `token` query of the page) bound to this email, or the ' +
          "caller's own session (first password only). Without either: 403 INVALID_SET_PASSWORD_LINK, the same for every email. " +
          '202 while the account of a valid link does not exist yet (the page retries). Success ends every other session.',
        body: setPasswordBody,
        querystring: setPasswordQuery,
        response: { 200: session, 202: z.object({ message: z.string() }), 400: errorBody, 403: errorBody, 409: errorBody },
      },
    },
    async (request, reply) => {
      const result = await setPassword(ctx, {
        email: request.body.email,
        password: request.body.password,
        token: request.body.token || request.query.token || undefined,
        actor: request.actor,
        sessionToken: request.cookies[SESSION_COOKIE],
      });
      if (result.status === 'provisioning') {
        return reply.status(202).send({ message: 'Your account is still being set up. Please wait.' });
      }
      if (result.newSession) return signIn(reply, ctx, result.actor);
      return { email: result.actor.email, role: result.actor.role };
    },
  );

  r.post(
    '/api/user/forgot-password',
    {
      config: authLimit,
      schema: {
        tags,
        description:
          'Emails a one-time link (1 hour) to set a new password when an account has this email; the answer is the same either way. ' +
          '503 EMAIL_NOT_CONFIGURED when SMTP_URL is not set (an ADMIN can create a link instead).',
        body: forgotPasswordBody,
        response: { 202: z.object({ message: z.string() }), 503: errorBody },
      },
    },
    async (request, reply) => {
      requestPasswordReset(ctx, request.body.email);
      return reply.status(202).send({ message: 'If an account uses this email, we have sent it a link to set a new password. The link works for one hour.' });
    },
  );

  r.post(
    '/api/user/change-password',
    {
      config: authLimit,
      schema: {
        tags,
        body: changePasswordBody,
        response: { 200: z.object({ message: z.string() }), 400: errorBody, 401: errorBody, 409: errorBody, 429: errorBody },
      },
    },
    async (request) => {
      const actor = requireUser(request);
      await changePassword(ctx, actor, { ...request.body, sessionToken: request.cookies[SESSION_COOKIE] });
      return { message: 'Password changed. Your other sessions have been signed out.' };
    },
  );

  r.post(
    '/api/user/logout-everywhere',
    { schema: { tags, response: { 200: z.object({ message: z.string() }), 401: errorBody } } },
    async (request, reply) => {
      const actor = requireUser(request);
      await endUserSessions(ctx, actor.id, 'signed out everywhere');
      clearSessionCookie(reply);
      return { message: 'Signed out everywhere' };
    },
  );

  r.post(
    '/api/admin/users/:email/reset-link',
    {
      schema: {
        tags,
        description: 'A one-time link (24 hours) the ADMIN hands to the user; it sets a new password and ends their sessions.',
        params: emailParams,
        response: { 200: resetLink, 404: errorBody },
      },
    },
    async (request) => adminResetLink(ctx, requireAdmin(request), request.params.email),
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
