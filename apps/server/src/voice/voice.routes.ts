import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUuid, UUID_SOURCE } from '@sales-agent/shared/uuid';
import type { ErrorCode } from '@sales-agent/shared/error-codes';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { AppError } from '../lib/errors.ts';
import { registerRawBodyParsers } from '../plugins/raw-body.ts';
import { findAccountByKey } from '../channels/accounts.ts';
import { verifyTwilioSignature } from '../channels/signatures.ts';
import { recordingStorage } from '../lib/recording-storage.ts';
import { parseRange } from '../lib/http-range.ts';
import { type CallContext, loadCallBySid, loadCallByUuid, rememberCallSid } from './call-context.ts';
import { advanceCallStatus, applyAnsweringMachine, applyStatusCallback } from './call-status.ts';
import { answerClassicCall, classicTurn } from './classic.ts';
import { callbackIdentity, claimCallback } from './callback-identity.ts';
import { answerInboundCall } from './inbound.ts';
import { RECORDING_JOB } from './recording.job.ts';
import { streamTwiml } from './twiml.ts';
import { callNotices } from './speech.ts';
import { isSpeechAudioSignature, mediaStreamUrl, streamBinding } from './urls.ts';

const tags = ['voice'];
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';
const STORAGE_KEY = new RegExp(`^${UUID_SOURCE}\\.mp3$`);

const uuidParams = z.object({ uuid: z.string().max(100) });
const formOf = (request: FastifyRequest): Record<string, string> => {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, string>) : {};
};

/**
 * Twilio's voice callbacks (docs/voice.md). Every one is verified first: X-Twilio-Signature with the Auth
 * Token of the call's TWILIO account over PUBLIC_URL + path + query and the sorted form parameters
 * (channels/signatures.ts). A missing or wrong signature, or a call we do not know, answers 403 and changes
 * nothing. Answers are TwiML (text/xml).
 */
export async function voiceRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  registerRawBodyParsers(app);
  const r = app.withTypeProvider<ZodTypeProvider>();

  const refuse = (request: FastifyRequest, reason: string): never => {
    request.log.warn({ url: request.url.split('?')[0], reason }, 'voice callback refused');
    throw new AppError(403, 'SIGNATURE_INVALID', 'The X-Twilio-Signature signature does not match.');
  };
  const signed = (request: FastifyRequest, token: string) =>
    verifyTwilioSignature(token, headerOf(request, 'x-twilio-signature'), ctx.config.PUBLIC_URL + request.url, formOf(request));

  /** The call of a per-call callback, once its signature is checked. */
  const verifiedCall = async (request: FastifyRequest, uuid: string): Promise<CallContext> => {
    const call = isUuid(uuid) ? await loadCallByUuid(ctx, uuid) : null;
    // Without the call there is no Auth Token to check with: refused like a bad signature (no probing).
    if (!call) return refuse(request, 'unknown call');
    if (!signed(request, call.account.accessToken)) return refuse(request, 'bad X-Twilio-Signature');
    return call;
  };
  /**
   * Runs a callback's effects once per Twilio request identity (voice/callback-identity.ts): a retried or
   * replayed callback changes nothing again. A failure gives the identity back, so Twilio's retry is handled.
   */
  const once = async (request: FastifyRequest, handle: () => Promise<void>): Promise<void> => {
    const claim = await claimCallback(ctx, callbackIdentity(ctx.config.PUBLIC_URL + request.url, formOf(request)));
    if (!claim.fresh) return;
    try {
      await handle();
    } catch (err) {
      await claim.release().catch(() => {});
      throw err;
    }
  };
  const twiml = (reply: FastifyReply, xml: string) => reply.type('text/xml').header('cache-control', 'no-store').send(xml);

  // The call was answered: realtime bridge or the classic pipeline's opening line and first <Gather>.
  r.post('/api/voice/calls/:uuid/twiml', { schema: { tags, params: uuidParams } }, async (request, reply) => {
    const call = await verifiedCall(request, request.params.uuid);
    const form = formOf(request);
    if (form.CallSid && !call.conversation.callSid) {
      await rememberCallSid(ctx, call.conversation.id, form.CallSid);
    }
    if (form.CallStatus) await advanceCallStatus(ctx, call, form.CallStatus);
    const callSid = form.CallSid ?? call.conversation.callSid;
    if (call.conversation.useRealtimeApi !== false) {
      // The stream is bound to this call (uuid + CallSid, signed): without a CallSid no stream could be served.
      if (!callSid || !/^CA[0-9a-fA-F]{32}$/.test(callSid)) return refuse(request, 'no CallSid to bind the media stream to');
      return twiml(reply, streamTwiml(mediaStreamUrl(ctx.config, streamBinding(ctx.config, call.conversation.uuid, callSid)), call.conversation.uuid, { notices: callNotices(call.type?.config) }));
    }
    return twiml(reply, await answerClassicCall(ctx, call, callSid ?? 'unknown'));
  });

  r.post(
    '/api/voice/calls/:uuid/gather',
    { schema: { tags, params: uuidParams, querystring: z.object({ silences: z.coerce.number().int().min(0).max(10).optional() }) } },
    async (request, reply) => {
      const call = await verifiedCall(request, request.params.uuid);
      // Idempotent on the request's identity: a replayed <Gather> stores the caller's line once and runs one turn.
      const identity = callbackIdentity(ctx.config.PUBLIC_URL + request.url, formOf(request));
      const claim = await claimCallback(ctx, identity);
      try {
        return twiml(reply, await classicTurn(ctx, call, formOf(request).SpeechResult, request.query.silences ?? 0, { identity, replay: !claim.fresh }));
      } catch (err) {
        if (claim.fresh) await claim.release().catch(() => {});
        throw err;
      }
    },
  );

  r.post('/api/voice/calls/:uuid/status', { schema: { tags, params: uuidParams } }, async (request, reply) => {
    const call = await verifiedCall(request, request.params.uuid);
    await once(request, () => applyStatusCallback(ctx, call, formOf(request)));
    return twiml(reply, EMPTY_TWIML);
  });

  r.post('/api/voice/calls/:uuid/amd', { schema: { tags, params: uuidParams } }, async (request, reply) => {
    const call = await verifiedCall(request, request.params.uuid);
    await once(request, () => applyAnsweringMachine(ctx, call, formOf(request)));
    return twiml(reply, EMPTY_TWIML);
  });

  // The recording is ready: fetched from a job (it can be large; Twilio waits at most 15 s for this answer).
  r.post('/api/voice/calls/:uuid/recording', { schema: { tags, params: uuidParams } }, async (request, reply) => {
    const call = await verifiedCall(request, request.params.uuid);
    const form = formOf(request);
    if (form.RecordingStatus === 'completed' && form.RecordingUrl) {
      const duration = /^\d{1,7}$/.test(form.RecordingDuration ?? '') ? Number(form.RecordingDuration) : 0;
      await once(request, async () => {
        await ctx.jobs.enqueue(
          RECORDING_JOB,
          { conversationUuid: call.conversation.uuid, recordingUrl: form.RecordingUrl, durationSeconds: duration },
          { singletonKey: `voice-recording:${call.conversation.id}`, maxAttempts: 8 },
        );
        ctx.jobs.wake();
      });
    }
    return twiml(reply, EMPTY_TWIML);
  });

  // Synthesized speech for <Play>: fetched by Twilio without a session, so the URL itself is signed.
  r.get(
    '/api/voice/speech/:signature/:key',
    { schema: { tags, params: z.object({ signature: z.string().max(100), key: z.string().max(100) }) } },
    async (request, reply) => {
      const { signature, key } = request.params;
      if (!STORAGE_KEY.test(key) || !isSpeechAudioSignature(ctx.config, key, signature)) {
        throw new AppError(404, 'NOT_FOUND', 'No such audio.');
      }
      const storage = recordingStorage(ctx);
      const size = await storage.size(key);
      if (size === null) throw new AppError(404, 'NOT_FOUND', 'No such audio.');
      const range = parseRange(request.headers.range, size);
      if (range === 'unsatisfiable') {
        return reply.status(416).header('content-range', `bytes */${size}`).send({ error: 'The requested range is outside the audio.', code: 'RANGE_NOT_SATISFIABLE' satisfies ErrorCode });
      }
      reply.type('audio/mpeg').header('accept-ranges', 'bytes').header('cache-control', 'private, max-age=3600');
      if (range) reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`).header('content-length', range.end - range.start + 1);
      else reply.header('content-length', size);
      return reply.send(await storage.read(key, range ?? undefined));
    },
  );

  // A call to one of our Twilio numbers (the number's "A call comes in" webhook).
  r.post('/api/twilio/voice', { schema: { tags } }, async (request, reply) => {
    const form = formOf(request);
    const account = form.To && form.CallSid ? await findAccountByKey(ctx, 'TWILIO', form.To) : null;
    if (!account) return refuse(request, 'no TWILIO account for To');
    if (!signed(request, account.accessToken)) return refuse(request, 'bad X-Twilio-Signature');
    return twiml(reply, await answerInboundCall(ctx, account, form));
  });

  // Status changes of inbound calls (the number's "Call status changes" webhook): found by CallSid.
  r.post('/api/twilio/voice/status', { schema: { tags } }, async (request, reply) => {
    const form = formOf(request);
    const call = form.CallSid ? await loadCallBySid(ctx, form.CallSid) : null;
    if (!call) return refuse(request, 'unknown CallSid');
    if (!signed(request, call.account.accessToken)) return refuse(request, 'bad X-Twilio-Signature');
    await once(request, () => applyStatusCallback(ctx, call, form));
    return twiml(reply, EMPTY_TWIML);
  });
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
