import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import {
  abComparison as abComparisonResult,
  abComparisonQuery,
  analyticsQuery,
  campaignFiguresResult,
  costResult,
  followUpsResult,
  handoffsResult,
  outcomesResult,
  voiceResult,
  funnelConversations,
  funnelConversationsQuery,
  funnelResult,
  speedResult,
} from '@sales-agent/shared/schemas/analytics';
import type { AppContext } from '../../context.ts';
import { requireUser } from '../../plugins/auth.ts';
import { abComparison } from './ab-comparison.ts';
import { campaignFigures } from './campaigns.ts';
import { cost } from './cost.ts';
import { outcomes } from './outcomes.ts';
import { voice } from './voice.ts';
import { followUpFigures, handoffFigures } from './handoffs.ts';
import { funnel, funnelStepConversations, speed } from './analytics.service.ts';

const tags = ['analytics'];
const errors = { 400: errorBody, 401: errorBody, 404: errorBody };

/**
 * Issue 26 analytics (docs/analytics.md). Under /api/admin/ for the contract's paths, but open to NORMAL users
 * too (plugins/auth.ts lets /api/admin/analytics/ through for any signed-in user): they see their granted
 * accounts' conversations only.
 */
export async function analyticsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/admin/analytics/funnel',
    { schema: { tags, querystring: analyticsQuery, response: { 200: funnelResult, ...errors } } },
    async (request) => funnel(ctx, requireUser(request), request.query),
  );
  r.get(
    '/api/admin/analytics/funnel/conversations',
    { schema: { tags, querystring: funnelConversationsQuery, response: { 200: funnelConversations, ...errors } } },
    async (request) => funnelStepConversations(ctx, requireUser(request), request.query),
  );
  r.get(
    '/api/admin/analytics/speed',
    { schema: { tags, querystring: analyticsQuery, response: { 200: speedResult, ...errors } } },
    async (request) => speed(ctx, requireUser(request), request.query),
  );
  r.get(
    '/api/admin/analytics/ab-test',
    { schema: { tags, querystring: abComparisonQuery, response: { 200: abComparisonResult, ...errors } } },
    async (request) => abComparison(ctx, requireUser(request), request.query),
  );
  r.get(
    '/api/admin/analytics/cost',
    { schema: { tags, querystring: analyticsQuery, response: { 200: costResult, ...errors } } },
    async (request) => cost(ctx, requireUser(request), request.query),
  );
  r.get(
    '/api/admin/analytics/outcomes',
    { schema: { tags, querystring: analyticsQuery, response: { 200: outcomesResult, ...errors } } },
    async (request) => outcomes(ctx, requireUser(request), request.query),
  );
  r.get(
    '/api/admin/analytics/voice',
    { schema: { tags, querystring: analyticsQuery, response: { 200: voiceResult, ...errors } } },
    async (request) => voice(ctx, requireUser(request), request.query),
  );
  r.get(
    '/api/admin/analytics/campaigns',
    { schema: { tags, querystring: analyticsQuery, response: { 200: campaignFiguresResult, ...errors } } },
    async (request) => campaignFigures(ctx, requireUser(request), request.query),
  );
  r.get(
    '/api/admin/analytics/handoffs',
    { schema: { tags, querystring: analyticsQuery, response: { 200: handoffsResult, ...errors } } },
    async (request) => handoffFigures(ctx, requireUser(request), request.query),
  );
  r.get(
    '/api/admin/analytics/follow-ups',
    { schema: { tags, querystring: analyticsQuery, response: { 200: followUpsResult, ...errors } } },
    async (request) => followUpFigures(ctx, requireUser(request), request.query),
  );
}
