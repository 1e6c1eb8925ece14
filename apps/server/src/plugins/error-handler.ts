import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { type ErrorCode, isErrorCode } from '@sales-agent/shared/error-codes';
import { AppError } from '../lib/errors.ts';

/**
 * The one error handler: every failure leaves as `{ error, code }` (DESIGN.md §5). Client mistakes keep
 * their 4xx and a readable sentence; anything unexpected is logged and answered with a generic 500.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof AppError) {
      const forMember = err.memberMessage !== undefined && request.actor?.role !== 'ADMIN';
      return reply.status(err.status).send({ error: forMember ? err.memberMessage : err.message, code: err.code });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const problems = err.validation.map((v) => {
        const field = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
        return field ? `${field}: ${v.message}` : v.message;
      });
      const where = err.validationContext === 'body' ? '' : ` (${err.validationContext})`;
      return reply
        .status(400)
        .send({ error: `Invalid request${where}: ${problems.join('; ')}`, code: 'VALIDATION_ERROR' satisfies ErrorCode });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ error: clientMessage(err), code: clientCode(err, status) });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ error: 'Something went wrong on our side. Please try again.', code: 'INTERNAL' satisfies ErrorCode });
  });
}

/**
 * Unknown API routes answer JSON 404. With the web app served, any other GET gets index.html so the
 * client router can show the page (or its own not-found page).
 */
export function registerNotFound(app: FastifyInstance, serveIndexHtml: boolean): void {
  app.setNotFoundHandler((request, reply) => {
    if (serveIndexHtml && request.method === 'GET' && !request.url.startsWith('/api/')) {
      return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html');
    }
    return reply.status(404).send({ error: `No route ${request.method} ${request.url.split('?')[0]}`, code: 'ROUTE_NOT_FOUND' satisfies ErrorCode });
  });
}

function clientMessage(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'The request body is not valid JSON.';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty; JSON was expected.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'This content type is not supported here.';
    default:
      if (err instanceof SyntaxError) return 'The request body is not valid JSON.';
      return err.message;
  }
}

/** A framework error's code in the shared list; a code outside it (a plugin's own) leaves as BAD_REQUEST. */
function clientCode(err: FastifyError, status: number): ErrorCode {
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) return 'INVALID_JSON';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status === 429) return 'RATE_LIMITED';
  return isErrorCode(err.code) ? err.code : 'BAD_REQUEST';
}
