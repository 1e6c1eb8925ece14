import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import {
  messagingAccountSaveBody,
  messagingAccountSaved,
  messagingAccountIdParams,
  messagingAccountView,
} from '@sales-agent/shared/schemas/messaging-account';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { requireUser } from '../../plugins/auth.ts';
import {
  deleteMessagingAccount,
  getMessagingAccount,
  listMessagingAccounts,
  removeOwnGrant,
  saveMessagingAccount,
  saveMessagingAccountConfig,
} from './messaging-accounts.service.ts';
import { userMessagingAccountsRoutes } from './user-messaging-accounts.routes.ts';

/**
 * Spec §7.4 messaging accounts (ADMIN, enforced for /api/admin/** by plugins/auth.ts), spec §7.1
 * DELETE /api/messaging-accounts/{id} (ADMIN or the user who connected the account) and
 * DELETE /api/user/messaging-accounts/{messagingAccountId} (a user removes their own grant). Response schemas list the
 * fields explicitly, so a token can never be serialised by accident.
 */
export async function messagingAccountsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['messaging-accounts'];

  r.get(
    '/api/admin/messaging-accounts/list',
    { schema: { tags, response: { 200: z.array(messagingAccountView) } } },
    async () => listMessagingAccounts(ctx),
  );

  r.get(
    '/api/admin/messaging-accounts/:id',
    { schema: { tags, params: idParams, response: { 200: messagingAccountView, 404: errorBody } } },
    async (request) => getMessagingAccount(ctx, request.params.id),
  );

  r.post(
    '/api/admin/messaging-accounts/create-edit',
    {
      schema: {
        tags,
        description: 'Creates (no id) or edits an account. 409 MESSAGING_ACCOUNT_EXISTS when another account of the type has the page id.',
        body: messagingAccountSaveBody,
        response: { 200: messagingAccountSaved, 400: errorBody, 404: errorBody, 409: errorBody },
      },
    },
    async (request) => ({
      message: 'Account created or updated successfully',
      messagingAccount: await saveMessagingAccount(ctx, requireUser(request), request.body),
    }),
  );

  r.delete(
    '/api/messaging-accounts/:id',
    {
      schema: {
        tags,
        summary: 'Delete a messaging account and all its conversations',
        description:
          'For an ADMIN or the user who connected (or created) the account. A user who was only granted it gets 403 NOT_ACCOUNT_OWNER and can remove their grant with DELETE /api/user/messaging-accounts/{messagingAccountId}.',
        params: idParams,
        response: { 200: messageBody, 401: errorBody, 403: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      await deleteMessagingAccount(ctx, requireUser(request), request.params.id);
      return { message: 'Account deleted successfully' };
    },
  );

  r.delete(
    '/api/user/messaging-accounts/:messagingAccountId',
    {
      schema: {
        tags,
        summary: "Remove an account from the signed-in user's accounts",
        description:
          "Deletes the signed-in user's own grant of the account. The account, its conversations and other users' grants stay. 404 when the user holds no grant of it.",
        params: messagingAccountIdParams,
        response: { 200: messageBody, 401: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      await removeOwnGrant(ctx, requireUser(request), request.params.messagingAccountId);
      return { message: 'Account removed from your accounts' };
    },
  );

  // Spec §7.4: the config is posted as the raw JSON text. In this child context both JSON and plain-text
  // bodies arrive unparsed, so the service can check the text itself and answer a readable 400.
  await app.register(async (raw) => {
    raw.removeContentTypeParser(['application/json', 'text/plain']);
    raw.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, (_request, body, done) => done(null, body));
    raw.withTypeProvider<ZodTypeProvider>().post(
      '/api/admin/messaging-accounts/:id/config',
      {
        schema: {
          tags,
          params: idParams,
          body: z.string().describe('The config as JSON text (a JSON object)'),
          response: { 200: messageBody, 400: errorBody, 404: errorBody },
        },
      },
      async (request) => {
        await saveMessagingAccountConfig(ctx, request.params.id, request.body);
        return { message: 'Configuration saved successfully.' };
      },
    );
  });

  await userMessagingAccountsRoutes(app, { ctx });
}
