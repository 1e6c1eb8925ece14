import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import { callInfo, placeCallBody, placeCallParams, placeCallResult } from '@sales-agent/shared/schemas/call';
import type { AppContext } from '../../context.ts';
import { requireAdmin } from '../../plugins/auth.ts';
import { recordingStorage } from '../../lib/recording-storage.ts';
import { sendByteRange } from '../../lib/http-range.ts';
import { callInfoOf, callRecordingOf, placeCall } from './calls.service.ts';

const tags = ['calls'];
const uuidParams = z.object({ uuid: z.uuid('Not a conversation uuid') });

/** Make a Call (spec §2.5, §7.3) and what the conversation screens show of a call (docs/voice.md). */
export async function callsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/api/admin/call/:phone',
    {
      schema: {
        tags,
        params: placeCallParams,
        body: placeCallBody,
        response: { 200: placeCallResult, 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody, 502: errorBody },
      },
    },
    async (request) => {
      requireAdmin(request);
      return placeCall(ctx, request.params.phone.trim(), request.body);
    },
  );

  r.get(
    '/api/conversation/:uuid/call',
    { schema: { tags, params: uuidParams, response: { 200: callInfo, 400: errorBody, 404: errorBody } } },
    async (request) => callInfoOf(ctx, request.actor, request.params.uuid),
  );

  // recordingUrl of a call conversation: the recording downloaded from Twilio, streamed with Range support.
  r.get('/api/conversation/:uuid/recording', { schema: { tags, params: uuidParams } }, async (request, reply) => {
    const { key, size } = await callRecordingOf(ctx, request.actor, request.params.uuid);
    return sendByteRange(reply, { size, contentType: 'audio/mpeg', rangeHeader: request.headers.range, what: 'recording' }, (range) =>
      recordingStorage(ctx).read(key, range),
    );
  });
}
