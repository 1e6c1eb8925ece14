import type { FastifyReply } from 'fastify';
import type { ErrorCode } from '@sales-agent/shared/error-codes';
import type { Readable } from 'node:stream';

/** A byte range of a file, both ends inclusive (as in Content-Range). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads a `Range` header against a file of `size` bytes (RFC 9110 §14.1.2). Answers `null` when the whole
 * file should be sent (no header, another unit, or several ranges — sending all is allowed), a range to
 * send as 206, or `'unsatisfiable'` for 416.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^\s*bytes\s*=\s*(.+)$/i.exec(header);
  if (!match) return null;
  const specs = match[1].split(',').map((s) => s.trim());
  if (specs.length !== 1) return null;
  const spec = /^(\d*)-(\d*)$/.exec(specs[0]);
  if (!spec || (spec[1] === '' && spec[2] === '')) return 'unsatisfiable';
  if (spec[1] === '') {
    const suffix = Number(spec[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(spec[1]);
  const end = spec[2] === '' ? size - 1 : Math.min(Number(spec[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/**
 * Answers a stored file with HTTP Range support: 416 with the size for an unsatisfiable range, 206 with
 * Content-Range for one range, else 200 with the whole file. `open` reads the bytes (the range, or all).
 * Shared by call recordings and the recordings of call conversations.
 */
export async function sendByteRange(
  reply: FastifyReply,
  file: { size: number; contentType: string; rangeHeader: string | undefined; disposition?: string; what: string },
  open: (range: ByteRange | undefined) => Promise<Readable>,
) {
  const { size } = file;
  const range = parseRange(file.rangeHeader, size);
  if (range === 'unsatisfiable') {
    return reply
      .status(416)
      .header('accept-ranges', 'bytes')
      .header('content-range', `bytes */${size}`)
      .send({ error: `The requested range is outside the ${file.what} (${size} bytes).`, code: 'RANGE_NOT_SATISFIABLE' satisfies ErrorCode });
  }
  reply
    .header('content-type', file.contentType)
    .header('accept-ranges', 'bytes')
    .header('cache-control', 'private, max-age=0')
    .header('x-content-type-options', 'nosniff');
  if (file.disposition) reply.header('content-disposition', file.disposition);
  if (range) {
    reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`).header('content-length', range.end - range.start + 1);
  } else {
    reply.header('content-length', size);
  }
  return reply.send(await open(range ?? undefined));
}

