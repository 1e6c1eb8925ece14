import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import {
  compareParams,
  comparisonIds,
  publishStatusView,
  scenarioList,
  scenarioParams,
  scenarioSchema,
  scenariosFileSchema,
  scenarioView,
  startComparisonBody,
  startRunBody,
  testRunComparison,
  testRunList,
  testRunView,
} from '@sales-agent/shared/schemas/agent-tests';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import {
  deleteScenario,
  getTestRun,
  importScenarios,
  listScenarios,
  listTestRuns,
  publishStatus,
  saveScenario,
  startTestRun,
} from './agent-tests.service.ts';
import { compareTestRuns, startComparison } from './test-run-comparison.ts';

const tags = ['agent-tests'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/** Issue 25: test scenarios of a type, sandbox runs and their reports (docs/agent-tests.md). ADMIN only. */
export async function agentTestsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = '/api/admin/conversation-type/:id';

  r.get(`${base}/scenarios`, { schema: { tags, params: idParams, response: { 200: scenarioList, ...errors } } }, async (request) =>
    listScenarios(ctx, request.params.id),
  );
  r.post(`${base}/scenarios`, { schema: { tags, params: idParams, body: scenarioSchema, response: { 200: scenarioView, ...errors } } }, async (request) =>
    saveScenario(ctx, request.params.id, request.body),
  );
  r.post(
    `${base}/scenarios/:scenarioId`,
    { schema: { tags, params: scenarioParams, body: scenarioSchema, response: { 200: scenarioView, ...errors } } },
    async (request) => saveScenario(ctx, request.params.id, request.body, request.params.scenarioId),
  );
  r.delete(`${base}/scenarios/:scenarioId`, { schema: { tags, params: scenarioParams, response: { 200: messageBody, ...errors } } }, async (request) => {
    await deleteScenario(ctx, request.params.id, request.params.scenarioId);
    return { message: 'Scenario deleted' };
  });
  // Export and import use the scenarios file shape of `npm run agent:test -- --scenarios file.json`.
  r.get(`${base}/scenarios/export`, { schema: { tags, params: idParams, response: { 200: scenariosFileSchema, ...errors } } }, async (request) =>
    (await listScenarios(ctx, request.params.id)).map(({ id: _id, ...scenario }) => scenario),
  );
  r.post(
    `${base}/scenarios/import`,
    { schema: { tags, params: idParams, body: scenariosFileSchema, response: { 200: z.object({ imported: z.number() }), ...errors } } },
    async (request) => importScenarios(ctx, request.params.id, request.body),
  );

  r.post(`${base}/test-runs`, { schema: { tags, params: idParams, body: startRunBody, response: { 202: z.object({ id: z.number() }), ...errors } } }, async (request, reply) =>
    reply.status(202).send(await startTestRun(ctx, request.params.id, request.body)),
  );
  r.get(`${base}/test-runs`, { schema: { tags, params: idParams, response: { 200: testRunList, ...errors } } }, async (request) =>
    listTestRuns(ctx, request.params.id),
  );
  // Side by side: the same scenarios on two versions (two batches), then compared per scenario and criterion.
  r.post(
    `${base}/test-comparisons`,
    { schema: { tags, params: idParams, body: startComparisonBody, response: { 202: comparisonIds, ...errors } } },
    async (request, reply) => reply.status(202).send(await startComparison(ctx, request.params.id, request.body)),
  );
  r.get('/api/admin/test-run/:id/compare/:otherId', { schema: { tags, params: compareParams, response: { 200: testRunComparison, ...errors } } }, async (request) =>
    compareTestRuns(ctx, request.params.id, request.params.otherId),
  );
  r.get(`${base}/publish-status`, { schema: { tags, params: idParams, response: { 200: publishStatusView, ...errors } } }, async (request) =>
    publishStatus(ctx, request.params.id),
  );
  r.get('/api/admin/test-run/:id', { schema: { tags, params: idParams, response: { 200: testRunView, ...errors } } }, async (request) =>
    getTestRun(ctx, request.params.id),
  );
}
