import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams } from '@sales-agent/shared/schemas/common';
import { crmContactsAnswer, crmContactsQuery, crmPipelinesAnswer } from '@sales-agent/shared/schemas/crm';
import type { AppContext } from '../../context.ts';
import { listPipelineContacts, listPipelines } from './crm.service.ts';

const tags = ['crm'];
// 429 and 502 carry GoHighLevel's own failures (rate limit, refused token, outage) as sentences (docs/crm.md).
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 429: errorBody, 502: errorBody };

/** Spec §7.3: the GoHighLevel pipelines and contacts of a CRM-linked type. ADMIN-only via /api/admin (plugins/auth.ts). */
export async function crmRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/admin/conversation-type/:id/pipelines',
    {
      schema: {
        tags,
        summary: "The GoHighLevel pipelines, with their stages, of a CRM-linked conversation type",
        description: 'Spec §7.3. Uses the type\'s apiKey/locationId or GHL_API_KEY/GHL_LOCATION_ID (docs/crm.md).',
        params: idParams,
        response: { 200: crmPipelinesAnswer, ...errors },
      },
    },
    async (request) => ({ pipelines: await listPipelines(ctx, request.params.id) }),
  );
  r.get(
    '/api/admin/conversation-type/:id/pipeline/contacts',
    {
      schema: {
        tags,
        summary: 'One page of the contacts (opportunities) of a GoHighLevel pipeline or stage',
        description:
          'Spec §7.3. Cursor paging: pass the previous answer\'s meta.startAfter and meta.startAfterId for the next page; both are null on the last page.',
        params: idParams,
        querystring: crmContactsQuery,
        response: { 200: crmContactsAnswer, ...errors },
      },
    },
    async (request) => listPipelineContacts(ctx, request.params.id, request.query),
  );
}
