import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import { callInfo, placeCallBody, placeCallParams, placeCallResult } from '@sales-agent/shared/schemas/call';
import type { AppContext } from '../../context.ts';
import { requireAdmin } from '../../plugins/auth.ts';
import { recordingStorage } from '../call-recordings/call-recordings.service.ts';
import { parseRange } from '../call-recordings/http-range.ts';
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
        response: { 200: placeCallResult, 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 502: errorBody },
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
    const range = parseRange(request.headers.range, size);
    if (range === 'unsatisfiable') {
      return reply
        .status(416)
        .header('accept-ranges', 'bytes')
        .header('content-range', `bytes */${size}`)
        .send({ error: `The requested range is outside the recording (${size} bytes).`, code: 'RANGE_NOT_SATISFIABLE' });
    }
    reply
      .type('audio/mpeg')
      .header('accept-ranges', 'bytes')
      .header('cache-control', 'private, max-age=0')
      .header('x-content-type-options', 'nosniff');
    if (range) {
      reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`).header('content-length', range.end - range.start + 1);
    } else {
      reply.header('content-length', size);
    }
    return reply.send(await recordingStorage(ctx).read(key, range ?? undefined));
  });
}
