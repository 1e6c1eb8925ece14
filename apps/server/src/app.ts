import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppConfig } from './config/env.ts';
import type { AppContext } from './context.ts';
import type { Database } from './db/client.ts';
import { jobDefinitions } from './jobs/index.ts';
import { JobRunner } from './jobs/runner.ts';
import { createSecretBox } from './lib/crypto.ts';
import { registerConfigSecrets } from './lib/redact.ts';
import { AppError } from './lib/errors.ts';
import { createEventBus } from './lib/events.ts';
import { createLimits, rateLimitStore } from './lib/limits.ts';
import { loggerOptions } from './plugins/logging.ts';
import { analyticsRoutes } from './modules/analytics/analytics.routes.ts';
import { appConfigRoutes } from './modules/app-config/app-config.routes.ts';
import { callRecordingsRoutes } from './modules/call-recordings/call-recordings.routes.ts';
import { conversationTypesRoutes } from './modules/conversation-types/conversation-types.routes.ts';
import { typeVersionsRoutes } from './modules/conversation-types/type-versions.routes.ts';
import { abTestsRoutes } from './modules/ab-tests/ab-tests.routes.ts';
import { agentTestsRoutes } from './modules/agent-tests/agent-tests.routes.ts';
import { conversationsRoutes } from './modules/conversations/conversations.routes.ts';
import { crmRoutes } from './modules/crm/crm.routes.ts';
import { channelsRoutes } from './channels/channels.routes.ts';
import { callsRoutes } from './modules/calls/calls.routes.ts';
import { optOutRoutes } from './modules/compliance/opt-out.routes.ts';
import { leadFieldsRoutes } from './modules/lead-fields/lead-fields.routes.ts';
import { customToolsRoutes } from './modules/custom-tools/custom-tools.routes.ts';
import { voiceRoutes } from './voice/voice.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { messagingAccountsRoutes } from './modules/messaging-accounts/messaging-accounts.routes.ts';
import { metaAuthRoutes } from './modules/meta-auth/meta-auth.routes.ts';
import { pricingRoutes } from './modules/pricing/pricing.routes.ts';
import { unansweredRoutes } from './modules/unanswered/unanswered.routes.ts';
import { knowledgeRoutes } from './modules/knowledge/knowledge.routes.ts';
import { integrationsRoutes } from './modules/integrations/integrations.routes.ts';
import { campaignsRoutes } from './modules/campaigns/campaigns.routes.ts';
import { userRoutes } from './modules/users/users.routes.ts';
import { registrationRoutes } from './modules/users/registration.routes.ts';
import { teamRoutes } from './modules/users/team.routes.ts';
import { cannedRepliesRoutes } from './modules/canned-replies/canned-replies.routes.ts';
import { contactsRoutes } from './modules/contacts/contacts.routes.ts';
import { mediaStreamRoutes } from './voice/realtime/media-stream.routes.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerErrorHandler, registerNotFound } from './plugins/error-handler.ts';
import { registerNulGuard } from './plugins/nul-guard.ts';
import { registerBodyTimeout } from './plugins/body-timeout.ts';
import { registerWebApp } from './plugins/web-app.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { trustProxyOption } from './plugins/trust-proxy.ts';
import { completeOpenapi, openapiBase } from './plugins/openapi.ts';

export interface BuildAppOptions {
  config: AppConfig;
  database: Database;
  /** Serve the built web app (production). Tests of the API leave it off. */
  serveWeb?: boolean;
  jobPollMs?: number;
}

/** JSON bodies above this are refused with 413; uploads have their own limit (UPLOAD_MAX_BYTES). */
export const JSON_BODY_LIMIT = 1024 * 1024;

export async function buildApp(options: BuildAppOptions): Promise<{ app: FastifyInstance; ctx: AppContext }> {
  const { config, database } = options;
  // Configured keys and passwords are redacted by value from every log line and stored error (lib/redact.ts).
  registerConfigSecrets(config as unknown as Record<string, unknown>);
  const app = Fastify({
    logger: loggerOptions(config),
    bodyLimit: JSON_BODY_LIMIT,
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    // Meta and Twilio sign the raw body; routes that need it read request.rawBody (set below).
    return503OnClosing: true,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const jobs = new JobRunner({ pollMs: options.jobPollMs, concurrency: config.JOB_CONCURRENCY });
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    log: app.log,
    secrets: createSecretBox(config.APP_SECRET),
    events: createEventBus(database, app.log),
    limits: createLimits(database, app.log),
    jobs,
  };
  jobs.bind(ctx);
  for (const definition of jobDefinitions) jobs.register(definition);

  // Infrastructure
  registerErrorHandler(app);
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        // Mantine and CodeMirror inject <style> elements at run time.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
        mediaSrc: ["'self'", 'blob:'],
        connectSrc: ["'self'"],
        scriptSrc: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  await app.register(cookie, { secret: config.APP_SECRET });
  await app.register(rateLimit, {
    global: false,
    // Counters in PostgreSQL when there is one, so every instance counts the same requests.
    store: rateLimitStore(ctx.limits),
    // The builder's return value is thrown, so an AppError reaches the one error handler.
    errorResponseBuilder: (_req, context) =>
      new AppError(429, 'RATE_LIMITED', `Too many requests. Please wait ${Math.ceil(context.ttl / 1000)} seconds and try again.`) as never,
  });
  await app.register(swagger, {
    openapi: openapiBase(config),
    transform: jsonSchemaTransform,
    // Summaries, operation ids, security per operation (plugins/openapi.ts; openapi.test.ts lints the result).
    transformObject: completeOpenapi as never,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
  registerBodyTimeout(app, config);
  registerAuth(app, ctx);
  registerNulGuard(app);
  registerMetrics(app, ctx);

  // Domain modules
  const modules = [
    healthRoutes,
    userRoutes,
    appConfigRoutes,
    conversationTypesRoutes,
    typeVersionsRoutes,
    abTestsRoutes,
    agentTestsRoutes,
    messagingAccountsRoutes,
    metaAuthRoutes,
    pricingRoutes,
    conversationsRoutes,
    unansweredRoutes,
    callRecordingsRoutes,
    channelsRoutes,
    callsRoutes,
    optOutRoutes,
    leadFieldsRoutes,
    customToolsRoutes,
    voiceRoutes,
    mediaStreamRoutes,
    crmRoutes,
    analyticsRoutes,
    knowledgeRoutes,
    registrationRoutes,
    integrationsRoutes,
    campaignsRoutes,
    teamRoutes,
    cannedRepliesRoutes,
    contactsRoutes,
  ];
  for (const plugin of modules) await app.register(plugin, { ctx });

  registerNotFound(app, options.serveWeb ? registerWebApp(app, webDistDir(config)) : false);
  app.addHook('onClose', async () => {
    await jobs.stop();
    await ctx.events.close();
    await ctx.limits.close();
  });
  return { app, ctx };
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where the built web app is (WEB_DIST_DIR, else apps/web/dist); plugins/web-app.ts serves it. */
function webDistDir(config: AppConfig): string {
  return path.resolve(config.WEB_DIST_DIR ?? path.join(repoRoot, 'apps/web/dist'));
}
