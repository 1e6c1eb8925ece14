import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { abTest, abTestList, abTestStartBody, abTestStopBody } from '@sales-agent/shared/schemas/ab-tests';
import { errorBody, idParams } from '@sales-agent/shared/schemas/common';
import type { AppContext } from '../../context.ts';
import { listAbTests, startAbTest, stopAbTest } from './ab-tests.service.ts';

const tags = ['conversation-types'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody };

/** A/B tests of a type's playbook versions (issue 26, docs/analytics.md "A/B tests"). ADMIN only (/api/admin/). */
export async function abTestsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/admin/conversation-type/:id/ab-test',
    { schema: { tags, params: idParams, response: { 200: abTestList, ...errors } } },
    async (request) => listAbTests(ctx, request.params.id),
  );
  r.post(
    '/api/admin/conversation-type/:id/ab-test',
    { schema: { tags, params: idParams, body: abTestStartBody, response: { 201: abTest, ...errors } } },
    async (request, reply) => reply.code(201).send(await startAbTest(ctx, request.params.id, request.body, request.actor ?? null)),
  );
  r.post(
    '/api/admin/conversation-type/:id/ab-test/stop',
    { schema: { tags, params: idParams, body: abTestStopBody, response: { 200: abTest, ...errors } } },
    async (request) => stopAbTest(ctx, request.params.id, request.body.winner),
  );
}
