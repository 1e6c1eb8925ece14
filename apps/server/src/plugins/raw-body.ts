import type { FastifyInstance } from 'fastify';
import { badRequest } from '../lib/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's bytes as received; set only inside plugins that call registerRawBodyParsers. */
    rawBody?: Buffer;
  }
}

/**
 * Body parsers for provider callbacks, which are signed over the exact bytes: Meta signs its own escaped
 * JSON (never a re-serialised object), the SMS gateway signs the body + timestamp, and Twilio posts forms.
 * Call inside an encapsulated plugin (a route module registered without fastify-plugin): the parsers then
 * apply to that module's routes only, and every other route keeps Fastify's own JSON parser.
 */
export function registerRawBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'application/x-www-form-urlencoded']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    request.rawBody = body;
    if (body.length === 0) return done(badRequest('The request body is empty; JSON was expected.', 'INVALID_JSON'));
    try {
      done(null, JSON.parse(body.toString('utf8')) as unknown);
    } catch {
      done(badRequest('The request body is not valid JSON.', 'INVALID_JSON'));
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    request.rawBody = body;
    // Twilio sends each parameter once; a repeated name keeps its first value (as Twilio's validator reads it).
    const params: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) if (!(name in params)) params[name] = value;
    done(null, params);
  });
}
