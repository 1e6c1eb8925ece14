import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import {
  diffQuery,
  playbookSnapshot,
  publishBody,
  typeVersionNumberParams,
  typeVersionParams,
  versionDiff,
  versionList,
} from '@sales-agent/shared/schemas/agent-tests';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { maskConfigSecrets } from '../crm/crm-config.ts';
import { diffTypeVersions, getTypeVersion, listTypeVersions, publishTypeVersion, restoreTypeVersion } from './type-versions.service.ts';
import { assertPublishAllowed } from './publish-gate.ts';

const tags = ['conversation-types'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody };

/** Issue 25: a type's published versions, publish, diff and restore (docs/playbook-versions.md). ADMIN only. */
export async function typeVersionsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/admin/conversation-type/:id/versions',
    { schema: { tags, params: idParams, response: { 200: versionList, ...errors } } },
    async (request) => listTypeVersions(ctx, request.params.id),
  );

  r.get(
    '/api/admin/conversation-type/:id/versions/diff',
    { schema: { tags, params: idParams, querystring: diffQuery, response: { 200: versionDiff, ...errors } } },
    async (request) => diffTypeVersions(ctx, request.params.id, request.query.from, request.query.to),
  );

  r.get(
    '/api/admin/conversation-type/:id/versions/:version',
    { schema: { tags, params: typeVersionParams, response: { 200: playbookSnapshot, ...errors } } },
    async (request) => {
      const snapshot = await getTypeVersion(ctx, request.params.id, request.params.version);
      return { ...snapshot, config: maskConfigSecrets(ctx, maskConfigSecrets(ctx, snapshot.config), 'booking.apiKey') };
    },
  );

  r.post(
    '/api/admin/conversation-type/:id/versions/publish',
    { schema: { tags, params: idParams, body: publishBody, response: { 200: z.object({ version: z.number() }), ...errors } } },
    async (request) => {
      await assertPublishAllowed(ctx, request.params.id);
      return publishTypeVersion(ctx, request.params.id, request.body.note ?? null, request.actor ?? null);
    },
  );

  r.post(
    '/api/admin/conversation-type/:id/versions/:version/restore',
    { schema: { tags, params: typeVersionNumberParams, response: { 200: messageBody, ...errors } } },
    async (request) => {
      await restoreTypeVersion(ctx, request.params.id, request.params.version);
      return { message: `Version ${request.params.version} restored as the draft.` };
    },
  );
}
