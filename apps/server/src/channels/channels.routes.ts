import { createHash } from 'node:crypto';
import { openApiKey } from '../modules/crm/crm-config.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, idParams } from '@sales-agent/shared/schemas/common';
import {
  rebuildResponse,
  simulatedSmsGatewayEvent,
  simulatedTwilioSms,
  webhookReceived,
} from '@sales-agent/shared/schemas/channels';
import type { AppContext } from '../context.ts';
import { AppError, badRequest } from '../lib/errors.ts';
import { loadConversationToView } from '../modules/conversations/conversation-policy.ts';
import { findStoredMedia, readStoredMedia } from './inbound-media.ts';
import { checkSimulation } from './simulator.ts';
import { registerRawBodyParsers } from '../plugins/raw-body.ts';
import { findAccountByKey } from './accounts.ts';
import { InboxWriter } from './inbox.ts';
import { parseMetaPayload, parseSmsGatewayEvent, parseTwilioSms } from './inbound-events.ts';
import { rebuildHistory } from './rebuild.ts';
import { verifyMetaSignature, verifySmsGatewaySignature, verifyTwilioSignature } from './signatures.ts';

const tags = ['channels'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody };
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';
const STORED_GATEWAY_EVENTS = new Set(['sms:received', 'sms:sent', 'sms:delivered', 'sms:failed']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The channel webhooks (DESIGN.md §7, docs/channels.md): each request is verified before anything is
 * stored, stored raw with its processing job in one statement, and answered at once; the job does the rest.
 * A refused request is logged as one warning line, with no payload.
 */
export async function channelsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  registerRawBodyParsers(app);
  const r = app.withTypeProvider<ZodTypeProvider>();
  const inbox = new InboxWriter(ctx);
  // A reply or a person's message was committed with its delivery job: send it now, not at the next poll.
  const stopWaking = ctx.events.on('outbox.queued', () => ctx.jobs.wake());
  app.addHook('onClose', async () => stopWaking());

  const refuse = (request: FastifyRequest, status: 401 | 403, reason: string, message: string): never => {
    request.log.warn({ url: request.url.split('?')[0], reason }, 'webhook refused');
    throw new AppError(status, status === 401 ? 'SIGNATURE_MISSING' : 'SIGNATURE_INVALID', message);
  };

  // Meta's subscription handshake.
  r.get(
    '/api/meta-api/webhook',
    {
      schema: {
        tags,
        querystring: z.object({
          'hub.mode': z.string().max(100).optional(),
          'hub.verify_token': z.string().max(500).optional(),
          'hub.challenge': z.string().max(500).optional(),
        }),
      },
    },
    async (request, reply) => {
      const query = request.query;
      const expected = ctx.config.META_VERIFY_TOKEN;
      if (query['hub.mode'] === 'subscribe' && expected && query['hub.verify_token'] === expected && query['hub.challenge'] !== undefined) {
        return reply.type('text/plain').send(query['hub.challenge']);
      }
      return refuse(request, 403, 'verify token mismatch', 'The verify token does not match.');
    },
  );

  r.post(
    '/api/meta-api/webhook',
    { schema: { tags, response: { 200: webhookReceived, ...errors } } },
    async (request) => {
      const body: unknown = request.body;
      const signature = request.headers['x-hub-signature-256'];
      let simulated = false;
      if (typeof signature === 'string') {
        const secrets = [ctx.config.META_APP_SECRET, ctx.config.INSTAGRAM_APP_SECRET];
        if (!verifyMetaSignature(request.rawBody ?? Buffer.alloc(0), signature, secrets)) {
          refuse(request, 403, 'bad X-Hub-Signature-256', 'The X-Hub-Signature-256 signature does not match.');
        }
      } else if (isSimulator(request)) {
        simulated = true;
      } else {
        refuse(request, 401, 'no X-Hub-Signature-256', 'The request is not signed (X-Hub-Signature-256).');
      }
      if (!isObject(body) || typeof body.object !== 'string' || !Array.isArray(body.entry)) {
        throw badRequest('A webhook payload needs "object" and an "entry" array.', 'INVALID_WEBHOOK');
      }
      if (simulated) await checkSimulation(ctx, parseMetaPayload(body));
      await inbox.accept({ source: 'meta', externalId: sha256(request.rawBody!), payload: body, simulated, userId: simulated ? request.actor?.id : undefined });
      return { received: true as const };
    },
  );

  r.post('/api/twilio/sms', { schema: { tags } }, async (request, reply) => {
    const params = request.body;
    if (!isObject(params) || typeof params.To !== 'string' || typeof params.MessageSid !== 'string') {
      throw badRequest("Twilio's To and MessageSid parameters are required.", 'INVALID_WEBHOOK');
    }
    const form = params as Record<string, string>;
    const account = await findAccountByKey(ctx, 'TWILIO', form.To);
    // Without the account there is no Auth Token to check the signature with.
    if (!account) refuse(request, 403, 'no TWILIO account for To', 'No Twilio messaging account has this number.');
    if (!verifyTwilioSignature(account!.accessToken, headerOf(request, 'x-twilio-signature'), ctx.config.PUBLIC_URL + request.url, form)) {
      refuse(request, 403, 'bad X-Twilio-Signature', 'The X-Twilio-Signature signature does not match.');
    }
    await inbox.accept({ source: 'twilio', externalId: form.MessageSid, payload: form, simulated: false });
    return reply.type('text/xml').send(EMPTY_TWIML);
  });

  // Status callbacks of our SMS (the StatusCallback each send names, senders/twilio.ts): From is our number, so
  // the account and its Auth Token; stored once per (message, status) so a repeated callback is a no-op.
  r.post('/api/twilio/sms-status', { schema: { tags } }, async (request, reply) => {
    const params = request.body;
    if (!isObject(params) || typeof params.From !== 'string' || typeof params.MessageSid !== 'string' || typeof params.MessageStatus !== 'string') {
      throw badRequest("Twilio's From, MessageSid and MessageStatus parameters are required.", 'INVALID_WEBHOOK');
    }
    const form = params as Record<string, string>;
    const account = await findAccountByKey(ctx, 'TWILIO', form.From);
    if (!account) refuse(request, 403, 'no TWILIO account for From', 'No Twilio messaging account has this number.');
    if (!verifyTwilioSignature(account!.accessToken, headerOf(request, 'x-twilio-signature'), ctx.config.PUBLIC_URL + request.url, form)) {
      refuse(request, 403, 'bad X-Twilio-Signature', 'The X-Twilio-Signature signature does not match.');
    }
    await inbox.accept({ source: 'twilio-status', externalId: `${form.MessageSid}:${form.MessageStatus}`, payload: form, simulated: false });
    return reply.code(204).send();
  });

  r.post('/api/sms-gateway/webhook', { schema: { tags, response: { 200: webhookReceived, ...errors } } }, async (request) => {
    const event = request.body;
    if (!isObject(event) || typeof event.deviceId !== 'string' || typeof event.event !== 'string') {
      throw badRequest('An SMS gateway event needs "deviceId" and "event".', 'INVALID_WEBHOOK');
    }
    const account = await findAccountByKey(ctx, 'SMS_GATEWAY', event.deviceId);
    // Sealed at rest when saved through the admin API (plain in older rows); null when it cannot be opened.
    const signingKey = typeof account?.config.signingKey === 'string' ? (openApiKey(ctx, account.config.signingKey) ?? '') : '';
    if (!account || !signingKey) refuse(request, 403, 'no SMS_GATEWAY account with a signingKey for deviceId', 'No SMS gateway account can verify this device.');
    const verdict = verifySmsGatewaySignature(request.rawBody!, headerOf(request, 'x-timestamp'), headerOf(request, 'x-signature'), signingKey);
    if (verdict === 'stale') refuse(request, 403, 'stale X-Timestamp', 'The X-Timestamp is more than 5 minutes off.');
    if (verdict !== 'ok') refuse(request, 403, 'bad X-Signature', 'The X-Signature signature does not match.');
    // Received messages and the reports on our sends (sms:sent / sms:delivered / sms:failed); ping and the
    // rest carry nothing to store.
    if (typeof event.event === 'string' && STORED_GATEWAY_EVENTS.has(event.event) && typeof event.id === 'string') {
      await inbox.accept({ source: 'sms-gateway', externalId: event.id, payload: event, simulated: false });
    }
    return { received: true as const };
  });

  // The simulator's way in for the channels that are not Meta's (spec §2.11, beyond the spec): the same
  // pipeline, marked simulated so replies are stored and shown but never sent.
  r.post(
    '/api/admin/webhook-simulation/twilio',
    { schema: { tags, body: simulatedTwilioSms, response: { 200: webhookReceived, ...errors } } },
    async (request) => {
      const form = Object.fromEntries(Object.entries(request.body).filter(([, v]) => v !== undefined)) as Record<string, string>;
      await checkSimulation(ctx, parseTwilioSms(form));
      await inbox.accept({ source: 'twilio', externalId: form.MessageSid, payload: form, simulated: true, userId: request.actor?.id });
      return { received: true as const };
    },
  );

  r.post(
    '/api/admin/webhook-simulation/sms-gateway',
    { schema: { tags, body: simulatedSmsGatewayEvent, response: { 200: webhookReceived, ...errors } } },
    async (request) => {
      await checkSimulation(ctx, parseSmsGatewayEvent(request.body));
      await inbox.accept({ source: 'sms-gateway', externalId: request.body.id, payload: request.body, simulated: true, userId: request.actor?.id });
      return { received: true as const };
    },
  );

  // A voice note or picture a prospect sent, as we stored it (never the provider's expiring URL): same rule as
  // reading the conversation.
  r.get(
    '/api/conversation/:uuid/messages/:messageId/media',
    {
      schema: {
        tags: ['conversations'],
        params: z.object({ uuid: z.uuid('must be a uuid'), messageId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) }),
      },
    },
    async (request, reply) => {
      const conversation = await loadConversationToView(ctx, request.actor, request.params.uuid);
      const row = await findStoredMedia(ctx, conversation.id, request.params.messageId);
      const { size, stream } = await readStoredMedia(ctx, row.key);
      reply.type(row.type ?? 'application/octet-stream').header('content-length', size).header('cache-control', 'private, max-age=3600');
      return reply.send(stream);
    },
  );

  r.post(
    '/api/admin/conversation/:id/messages/rebuild',
    { schema: { tags: ['conversations'], params: idParams, response: { 200: rebuildResponse, ...errors, 502: errorBody } } },
    async (request) => rebuildHistory(ctx, request.params.id),
  );
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The webhook simulator: an ADMIN's session from our own page. The auth plugin has already refused a
 * foreign Origin; requiring one at all keeps scripts with a stolen cookie but no browser out.
 */
function isSimulator(request: FastifyRequest): boolean {
  return request.actor?.role === 'ADMIN' && typeof request.headers.origin === 'string';
}
