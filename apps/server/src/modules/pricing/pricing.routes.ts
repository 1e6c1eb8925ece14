import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import { pricingQuery, pricingResult } from '@sales-agent/shared/schemas/pricing';
import type { AppContext } from '../../context.ts';
import { DEFAULT_PRICES_FILE, estimateConversationCost, loadPrices } from './pricing.service.ts';

/** Spec §7.5 pricing calculator (ADMIN, via the /api/admin prefix). Prices are read once at start. */
export async function pricingRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const prices = loadPrices(ctx.config.PRICING_FILE ?? DEFAULT_PRICES_FILE);
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/admin/pricing/conversation',
    {
      schema: {
        tags: ['pricing'],
        querystring: pricingQuery,
        response: { 200: pricingResult, 400: errorBody, 401: errorBody, 403: errorBody },
      },
    },
    async (request) => estimateConversationCost(prices, request.query),
  );
}
