import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { appConfigList, appConfigQuery, appConfigSaveBody } from '@sales-agent/shared/schemas/app-config';
import { messageBody } from '@sales-agent/shared/schemas/common';
import type { AppContext } from '../../context.ts';
import { readAppConfig, saveAppConfig } from './app-config.service.ts';

const LABELS: Record<string, string> = {
  registerHTML: 'Register page HTML',
  supportMessage: 'Support message',
  onboardingHTML: 'Onboarding HTML',
  globalMessage: 'Global message',
};

export async function appConfigRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['app-config'];

  r.get('/api/app-config', { schema: { tags, querystring: appConfigQuery, response: { 200: appConfigList } } }, async (request) => ({
    values: await readAppConfig(ctx, request.query.key),
  }));

  r.post(
    '/api/admin/app-config',
    { schema: { tags, body: appConfigSaveBody, response: { 200: messageBody } } },
    async (request) => {
      await saveAppConfig(ctx, request.body.key, request.body.value);
      return { message: `${LABELS[request.body.key]} saved.` };
    },
  );
}
