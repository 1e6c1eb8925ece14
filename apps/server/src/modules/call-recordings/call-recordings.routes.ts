import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody, idParams, messageBody } from '@sales-agent/shared/schemas/common';
import {
  generatedTranscript,
  recordingList,
  recordingListQuery,
  transcriptWithCallInfo,
  UPLOAD_FIELD,
  uploadResult,
} from '@sales-agent/shared/schemas/call-recording';
import type { AppContext } from '../../context.ts';
import { AppError, badRequest } from '../../lib/errors.ts';
import { requireUser } from '../../plugins/auth.ts';
import { presentRecording } from './call-recordings.presenter.ts';
import {
  deleteRecording,
  downloadName,
  findRecording,
  generateTranscript,
  type IncomingFile,
  listRecordings,
  openRecording,
  readTranscript,
  recordingSize,
  storeRecordings,
} from './call-recordings.service.ts';
import { recordingStorage } from '../../lib/recording-storage.ts';
import { sendByteRange } from '../../lib/http-range.ts';
import { transcriptionAvailability } from '../../lib/transcription.ts';
import { z } from 'zod';
import { checkDeclaredLength, countUploadedBytes, formatBytes, type UploadBudget, UploadMeter, uploadBudget } from './upload-limits.ts';

const tags = ['call-recordings'];
/** Files per upload request. */
export const MAX_FILES_PER_UPLOAD = 20;

export async function callRecordingsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // Registered here, not globally: only these routes accept multipart bodies, with the upload limit. busboy's
  // own per-file limit is one byte above ours so UploadMeter sees the crossing and fails at once (busboy
  // would drop the rest of the file silently and report only at its end).
  await app.register(multipart, {
    limits: { fileSize: ctx.config.UPLOAD_MAX_BYTES + 1, files: MAX_FILES_PER_UPLOAD, fields: 10, parts: MAX_FILES_PER_UPLOAD + 10 },
  });
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/call-recording/list',
    { schema: { tags, querystring: recordingListQuery, response: { 200: recordingList, 401: errorBody } } },
    async (request) => {
      const rows = await listRecordings(ctx, requireUser(request), request.query);
      return { recordings: rows.map(presentRecording) };
    },
  );

  // Issue 12: whether Generate Transcript can work, with the server's sentence when it cannot (signed-in users;
  // a member is told to ask their admin, issue 24).
  r.get(
    '/api/call-recording/transcription',
    {
      schema: {
        tags,
        response: { 200: z.object({ available: z.boolean(), reason: z.string().nullable() }), 401: errorBody },
      },
    },
    async (request) => {
      return transcriptionAvailability(ctx, requireUser(request));
    },
  );

  r.post(
    '/api/call-recording/upload',
    {
      schema: {
        tags,
        consumes: ['multipart/form-data'],
        description:
          `Multipart upload; each file in the field "${UPLOAD_FIELD}". Audio and video only, checked from the bytes. ` +
          'Every readable file is stored; `refused` lists the others with the reason. With none readable: 400.',
        response: { 201: uploadResult, 400: errorBody, 401: errorBody, 413: errorBody, 507: errorBody },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request);
      if (!request.isMultipart()) {
        throw badRequest(`Send the files as multipart/form-data in the field "${UPLOAD_FIELD}".`, 'NOT_MULTIPART');
      }
      let files: IncomingFile[];
      try {
        const budget = await uploadBudget(ctx, actor);
        checkDeclaredLength(budget, request.headers['content-length']);
        files = await receiveFiles(request, recordingStorage(ctx).incomingDir, ctx.config.UPLOAD_MAX_BYTES, budget);
      } catch (err) {
        // Refused before the body ended: close the connection rather than read (up to gigabytes) to the end.
        if (err instanceof AppError && (err.status === 413 || err.status === 507)) reply.header('connection', 'close');
        throw err;
      }
      const { stored, refused } = await storeRecordings(ctx, actor, files);
      // Only what was kept counts against the day's bytes; a refused file's bytes were removed.
      await countUploadedBytes(ctx, actor, stored.reduce((sum, row) => sum + row.sizeBytes, 0));
      const recordings = stored.map(presentRecording);
      if (refused.length === 0) return reply.status(201).send({ message: uploadedMessage(stored.length), recordings });
      const notStored = refused.length === 1 ? '1 file was not uploaded' : `${refused.length} files were not uploaded`;
      return reply.status(201).send({ message: `${uploadedMessage(stored.length)} ${notStored}.`, recordings, refused });
    },
  );

  r.get('/api/call-recording/:id/stream', { schema: { tags, params: idParams } }, async (request, reply) =>
    sendRecording(ctx, request, reply, request.params.id, 'inline'),
  );

  r.get('/api/call-recording/:id/download', { schema: { tags, params: idParams } }, async (request, reply) =>
    sendRecording(ctx, request, reply, request.params.id, 'attachment'),
  );

  r.delete(
    '/api/call-recording/:id',
    { schema: { tags, params: idParams, response: { 200: messageBody, 404: errorBody } } },
    async (request) => {
      await deleteRecording(ctx, requireUser(request), request.params.id);
      return { message: 'Recording deleted.' };
    },
  );

  r.post(
    '/api/call-recording/:id/transcript',
    { schema: { tags, params: idParams, response: { 200: generatedTranscript, 404: errorBody, 502: errorBody, 503: errorBody } } },
    async (request) => ({ transcript: await generateTranscript(ctx, requireUser(request), request.params.id) }),
  );

  r.get(
    '/api/call-recording/:id/transcript',
    { schema: { tags, params: idParams, response: { 200: transcriptWithCallInfo, 404: errorBody } } },
    async (request) => readTranscript(ctx, requireUser(request), request.params.id),
  );
}

/**
 * Writes each file part to the incoming directory as it arrives (never whole in memory). Any failure
 * removes what was written so far.
 */
async function receiveFiles(request: FastifyRequest, dir: string, maxBytes: number, budget: UploadBudget): Promise<IncomingFile[]> {
  const files: IncomingFile[] = [];
  const writers: WriteStream[] = [];
  const meter = new UploadMeter(budget, maxBytes, () => fileTooLarge(maxBytes));
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      if (part.fieldname !== UPLOAD_FIELD) {
        part.file.resume();
        throw badRequest(`Unexpected file field "${part.fieldname}"; send the files in the field "${UPLOAD_FIELD}".`, 'UNEXPECTED_FIELD');
      }
      const file: IncomingFile = { tempPath: path.join(dir, `${randomUUID()}.part`), clientName: part.filename ?? '', size: 0 };
      files.push(file);
      const writer = createWriteStream(file.tempPath);
      writers.push(writer);
      await pipeline(part.file, meter.file(), writer);
      file.size = (await stat(file.tempPath)).size;
    }
    return files;
  } catch (err) {
    // pipeline() rejects as soon as the meter refuses, while the destroyed write stream may still be
    // opening its file: remove only once every writer has closed, or a late open leaves a .part behind.
    await Promise.all(writers.map((w) => (w.closed ? undefined : once(w, 'close').catch(() => undefined))));
    await Promise.all(files.map((f) => rm(f.tempPath, { force: true })));
    throw uploadError(err, maxBytes);
  }
}

const uploadedMessage = (count: number) => (count === 1 ? '1 recording uploaded.' : `${count} recordings uploaded.`);

function uploadError(err: unknown, maxBytes: number): unknown {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return fileTooLarge(maxBytes);
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return new AppError(413, 'TOO_MANY_FILES', `Upload at most ${MAX_FILES_PER_UPLOAD} files at a time.`);
  }
  // System errors (disk full, permissions) are ours: let them become a logged 500.
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return err;
  const status = (err as { statusCode?: number }).statusCode;
  if (status && status >= 400 && status < 500) return new AppError(400, 'BAD_UPLOAD', 'The upload could not be read. Please try again.');
  // busboy's parse errors ("Unexpected end of form", "Malformed part header") carry no status.
  return new AppError(400, 'BAD_UPLOAD', 'The upload was malformed or interrupted. Please try again.');
}

function fileTooLarge(maxBytes: number): AppError {
  return new AppError(413, 'FILE_TOO_LARGE', `A file is larger than the upload limit of ${formatBytes(maxBytes)}.`);
}

/** Streams a recording with HTTP Range support (206/416), inline for the player or as an attachment. */
async function sendRecording(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  id: number,
  disposition: 'inline' | 'attachment',
) {
  const row = await findRecording(ctx, requireUser(request), id);
  const size = await recordingSize(ctx, row);
  const name = downloadName(row);
  return sendByteRange(
    reply,
    {
      size,
      contentType: row.mimeType,
      rangeHeader: request.headers.range,
      disposition: `${disposition}; filename="${name.ascii}"; filename*=UTF-8''${encodeURIComponent(name.utf8)}`,
      what: 'file',
    },
    (range) => openRecording(ctx, row, range),
  );
}
