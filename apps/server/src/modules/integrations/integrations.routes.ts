import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, idParam, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import {
  apiKeyCreateBody,
  apiKeyCreated,
  apiKeyView,
  leadBody,
  leadResult,
  webhookCreateBody,
  webhookCreated,
  webhookDeliveryView,
  webhookEndpointView,
  webhookUpdateBody,
} from '@sales-agent/shared/schemas/integrations';
import type { AppContext } from '../../context.ts';
import { forbidden } from '../../lib/errors.ts';
import { requireAdmin, requireUser } from '../../plugins/auth.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.ts';
import { startLead } from './leads.service.ts';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, resendDelivery, sendTestEvent, updateWebhook } from './webhooks.service.ts';

/** API keys and outbound webhooks (issue 27, docs/api.md): ADMIN only (the /api/admin prefix), never with a key. */
export async function integrationsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const keys = ['api-keys'];
  const hooks = ['webhooks'];
  const queued = z.object({ deliveryId: z.number() });

  r.get('/api/admin/api-keys', { schema: { tags: keys, summary: 'List API keys (never their plaintext)', response: { 200: z.array(apiKeyView) } } }, async () => listApiKeys(ctx));

  r.post(
    '/api/admin/api-keys',
    { schema: { tags: keys, summary: 'Create an API key; the answer is the only time the key is shown', body: apiKeyCreateBody, response: { 201: apiKeyCreated } } },
    async (request, reply) => reply.status(201).send(await createApiKey(ctx, requireAdmin(request), request.body)),
  );

  r.delete(
    '/api/admin/api-keys/:id',
    { schema: { tags: keys, summary: 'Revoke an API key (at once, on every instance)', params: idParams, response: { 200: messageBody, 404: errorBody } } },
    async (request) => {
      await revokeApiKey(ctx, request.params.id);
      return { message: 'API key revoked.' };
    },
  );

  r.get('/api/admin/webhooks', { schema: { tags: hooks, summary: 'List webhook endpoints', response: { 200: z.array(webhookEndpointView) } } }, async () => listWebhooks(ctx));

  r.post(
    '/api/admin/webhooks',
    {
      schema: {
        tags: hooks,
        summary: 'Subscribe a URL to events; the answer is the only time the signing secret is shown',
        body: webhookCreateBody,
        response: { 201: webhookCreated, 400: errorBody },
      },
    },
    async (request, reply) => reply.status(201).send(await createWebhook(ctx, requireAdmin(request), request.body)),
  );

  r.patch(
    '/api/admin/webhooks/:id',
    { schema: { tags: hooks, summary: "Change an endpoint's URL or events, or disable / enable it", params: idParams, body: webhookUpdateBody, response: { 200: webhookEndpointView, 404: errorBody } } },
    async (request) => updateWebhook(ctx, request.params.id, request.body),
  );

  r.delete(
    '/api/admin/webhooks/:id',
    { schema: { tags: hooks, summary: 'Delete a webhook endpoint and its deliveries', params: idParams, response: { 200: messageBody, 404: errorBody } } },
    async (request) => {
      await deleteWebhook(ctx, request.params.id);
      return { message: 'Webhook endpoint deleted.' };
    },
  );

  r.get(
    '/api/admin/webhooks/:id/deliveries',
    { schema: { tags: hooks, summary: "An endpoint's recent deliveries (newest first)", params: idParams, response: { 200: z.array(webhookDeliveryView), 404: errorBody } } },
    async (request) => listDeliveries(ctx, request.params.id),
  );

  r.post(
    '/api/admin/webhooks/:id/deliveries/:deliveryId/resend',
    {
      schema: {
        tags: hooks,
        summary: "Send a delivery's event again (same event id)",
        params: z.object({ id: idParam, deliveryId: z.coerce.number().int().positive() }),
        response: { 202: queued, 404: errorBody },
      },
    },
    async (request, reply) => reply.status(202).send(await resendDelivery(ctx, request.params.id, request.params.deliveryId)),
  );

  r.post(
    '/api/admin/webhooks/:id/test',
    { schema: { tags: hooks, summary: 'Send a webhook.test event to this endpoint', params: idParams, response: { 202: queued, 404: errorBody } } },
    async (request, reply) => reply.status(202).send(await sendTestEvent(ctx, request.params.id)),
  );

  r.post(
    '/api/leads',
    {
      schema: {
        tags: ['leads'],
        summary: "Start a lead: a prospect by phone, and the type's opening SMS / WhatsApp message or a call (ADMIN or an ADMIN's key)",
        body: leadBody,
        response: { 201: leadResult, 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request);
      if (actor.role !== 'ADMIN') throw forbidden('Starting a lead needs an administrator (or an administrator\'s API key).');
      return reply.status(201).send(await startLead(ctx, request.body));
    },
  );
}
