import type { FastifyInstance } from 'fastify';
import { badRequest } from '../lib/errors.ts';

/**
 * PostgreSQL `text` and `jsonb` cannot hold U+0000: a string carrying it would pass every schema and then
 * fail inside a query as a 500. Every route's body, query string and path parameters are checked once,
 * before validation, and such input is answered 400 naming the field.
 */
export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const parts = [
      ['body', request.body],
      ['querystring', request.query],
      ['params', request.params],
    ] as const;
    for (const [part, value] of parts) {
      const field = findNul(value);
      if (field === null) continue;
      const where = part === 'body' ? '' : ` (${part})`;
      throw badRequest(`Invalid request${where}: ${field || part}: must not contain the NUL character`, 'VALIDATION_ERROR');
    }
  });
}

/** The dotted path of the first string (or key) holding U+0000, '' for the value itself, or null. */
function findNul(root: unknown): string | null {
  // Iterative, so a deeply nested JSON body cannot overflow the stack.
  const stack: Array<[unknown, string]> = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path;
    } else if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
      for (const [key, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${key}` : key;
        if (key.includes('\u0000')) return childPath;
        stack.push([child, childPath]);
      }
    }
  }
  return null;
}
