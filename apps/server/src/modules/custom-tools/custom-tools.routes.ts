import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { testToolBody, testToolResponse } from '@sales-agent/shared/schemas/custom-tools';
import { z } from 'zod';
import { testCustomTool } from '../../agent/agent.service.ts';
import type { AppContext } from '../../context.ts';
import { typeConfigText } from '../../conversations/type-config.ts';
import { notFound } from '../../lib/errors.ts';

const tags = ['conversation-types'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/** ADMIN only (plugins/auth.ts guards /api/admin/**): the "Test tool" button of a type's custom HTTP tool. */
export async function customToolsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/api/admin/conversation-type/:id/tools/:name/test',
    {
      schema: {
        tags,
        params: z.object({ id: z.coerce.number().int().positive(), name: z.string().min(1).max(64) }),
        body: testToolBody,
        response: { 200: testToolResponse, ...errors },
      },
    },
    async (request) => {
      const config = await typeConfigText(ctx.db, request.params.id);
      if (config === undefined) throw notFound('Conversation type not found', 'CONVERSATION_TYPE_NOT_FOUND');
      const tool = readConversationTypeConfig(config).tools?.find((t) => t.name === request.params.name);
      if (!tool) throw notFound(`This conversation type has no tool named ${request.params.name}; save the config first.`, 'NOT_FOUND');
      return testCustomTool(ctx, tool, request.body.arguments);
    },
  );
}
