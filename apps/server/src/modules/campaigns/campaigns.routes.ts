import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, idParam } from '@sales-agent/shared/schemas/common';
import { campaignCreateBody, campaignCreated, campaignDetail as campaignDetailView, campaignSummary } from '@sales-agent/shared/schemas/campaigns';
import type { AppContext } from '../../context.ts';
import { requireAdmin } from '../../plugins/auth.ts';
import { campaignDetail, changeCampaign, createCampaign, exportCampaign, summaries } from './campaigns.service.ts';

const tags = ['campaigns'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody };
const params = z.object({ id: idParam });

/**
 * Outbound campaigns (issue 23 item 4, docs/campaigns.md): ADMIN only (the /api/admin prefix), never with an
 * API key (not listed in plugins/api-key-scopes.ts, so API_KEY_NOT_ALLOWED).
 */
export async function campaignsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/api/admin/campaigns', { schema: { tags, summary: 'Every campaign with its counts (newest first)', response: { 200: z.array(campaignSummary), ...errors } } }, async () =>
    summaries(ctx),
  );

  r.post(
    '/api/admin/campaigns',
    {
      schema: {
        tags,
        summary: 'Create a campaign (a draft) from a list of contacts and/or a CSV with a "phone" column',
        body: campaignCreateBody,
        response: { 201: campaignCreated, ...errors },
      },
    },
    async (request, reply) => reply.status(201).send(await createCampaign(ctx, requireAdmin(request), request.body)),
  );

  r.get(
    '/api/admin/campaigns/:id',
    { schema: { tags, summary: 'A campaign: status, counts, every contact with its status and conversation, and its audit', params, response: { 200: campaignDetailView, ...errors } } },
    async (request) => campaignDetail(ctx, request.params.id),
  );

  for (const action of ['start', 'pause', 'stop'] as const) {
    r.post(
      `/api/admin/campaigns/:id/${action}`,
      {
        schema: {
          tags,
          summary: action === 'start' ? 'Start a draft campaign, or resume a paused one' : action === 'pause' ? 'Pause a running campaign' : 'Stop a campaign for good',
          params,
          response: { 200: campaignSummary, ...errors },
        },
      },
      async (request) => changeCampaign(ctx, requireAdmin(request), request.params.id, action),
    );
  }

  r.get(
    '/api/admin/campaigns/:id/export',
    { schema: { tags, summary: 'The results as CSV: one row per contact with its fields, status and conversation', params, response: { 200: z.string(), ...errors } } },
    async (request, reply) => {
      const { name, csv } = await exportCampaign(ctx, request.params.id);
      const file = `${name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-|-$/g, '') || 'campaign'}-results.csv`;
      return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${file}"`).send(csv);
    },
  );
}
