import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, badRequest } from './errors.ts';

/**
 * The one file of a multipart request in `field`, whole in memory (the knowledge documents and CSV imports; the
 * route's plugin registers @fastify/multipart with a fileSize limit one byte above `maxBytes`, so an oversized
 * file is detected rather than silently cut). 400 when there is no such file, 413 when it is too large.
 */
export async function uploadedFile(request: FastifyRequest, reply: FastifyReply, { field, maxBytes }: { field: string; maxBytes: number }) {
  const file = request.isMultipart() ? await request.file() : undefined;
  if (!file || file.fieldname !== field) {
    throw badRequest(`Send the file as multipart/form-data in the field "${field}".`);
  }
  let bytes: Buffer;
  try {
    bytes = await file.toBuffer();
  } catch {
    bytes = Buffer.alloc(0);
  }
  if (file.file.truncated || bytes.length > maxBytes) {
    // Refused before the body ended: close rather than read the rest.
    reply.header('connection', 'close');
    throw new AppError(413, 'UPLOAD_TOO_LARGE', `The file is larger than ${maxBytes / 1024 / 1024} MB.`);
  }
  return { fileName: file.filename, mimeType: file.mimetype, bytes };
}
